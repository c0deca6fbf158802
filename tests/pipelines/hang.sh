#!/bin/sh
# Never answers.
sleep 1000
