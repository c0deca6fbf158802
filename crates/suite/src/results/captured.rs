//! Output captured from the three frameworks on a development machine (pytest 7.2.1 on Python
//! 3.11, Node 20.20, cargo 1.95), kept as it was printed, for the parsers' tests.

/// `python3 -m pytest -v` over a file with a pass, a fail, a skip, an xfail, an xpass, three parametrized cases (one with a space in its id), a class test and a fixture error.
pub const PYTEST_V: &str = r#"============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0+repack -- /usr/bin/python3
rootdir: /tmp/suite-cap/py
collecting ... collected 10 items

tests/test_x.py::test_pass PASSED                                        [ 10%]
tests/test_x.py::test_fail FAILED                                        [ 20%]
tests/test_x.py::test_skip SKIPPED (not now)                             [ 30%]
tests/test_x.py::test_xfail XFAIL (known)                                [ 40%]
tests/test_x.py::test_xpass XPASS (fixed)                                [ 50%]
tests/test_x.py::test_param[1] PASSED                                    [ 60%]
tests/test_x.py::test_param[2] FAILED                                    [ 70%]
tests/test_x.py::test_param[a b] PASSED                                  [ 80%]
tests/test_x.py::TestC::test_m PASSED                                    [ 90%]
tests/test_x.py::test_error ERROR                                        [100%]

==================================== ERRORS ====================================
_________________________ ERROR at setup of test_error _________________________

    @pytest.fixture
    def broken():
>       raise RuntimeError("boom")
E       RuntimeError: boom

tests/test_x.py:31: RuntimeError
=================================== FAILURES ===================================
__________________________________ test_fail ___________________________________

    def test_fail():
>       assert 1 + 1 == 3
E       assert (1 + 1) == 3

tests/test_x.py:7: AssertionError
________________________________ test_param[2] _________________________________

n = 2

    @pytest.mark.parametrize("n", [1, 2, "a b"])
    def test_param(n):
>       assert n != 2
E       assert 2 != 2

tests/test_x.py:23: AssertionError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_fail - assert (1 + 1) == 3
FAILED tests/test_x.py::test_param[2] - assert 2 != 2
ERROR tests/test_x.py::test_error - RuntimeError: boom
==== 2 failed, 4 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.04s =====
"#;

/// The same file with `-rA` (no `-v`): the short summary names every test but the skipped one, which it gives by location.
pub const PYTEST_RA: &str = r#"============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0+repack
rootdir: /tmp/suite-cap/py
collected 10 items

tests/test_x.py .FsxX.F..E                                               [100%]

==================================== ERRORS ====================================
_________________________ ERROR at setup of test_error _________________________

    @pytest.fixture
    def broken():
>       raise RuntimeError("boom")
E       RuntimeError: boom

tests/test_x.py:31: RuntimeError
=================================== FAILURES ===================================
__________________________________ test_fail ___________________________________

    def test_fail():
>       assert 1 + 1 == 3
E       assert (1 + 1) == 3

tests/test_x.py:7: AssertionError
________________________________ test_param[2] _________________________________

n = 2

    @pytest.mark.parametrize("n", [1, 2, "a b"])
    def test_param(n):
>       assert n != 2
E       assert 2 != 2

tests/test_x.py:23: AssertionError
==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_x.py::test_pass
PASSED tests/test_x.py::test_param[1]
PASSED tests/test_x.py::test_param[a b]
PASSED tests/test_x.py::TestC::test_m
SKIPPED [1] tests/test_x.py:9: not now
XFAIL tests/test_x.py::test_xfail - known
XPASS tests/test_x.py::test_xpass fixed
ERROR tests/test_x.py::test_error - RuntimeError: boom
FAILED tests/test_x.py::test_fail - assert (1 + 1) == 3
FAILED tests/test_x.py::test_param[2] - assert 2 != 2
==== 2 failed, 4 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.04s =====
"#;

/// The same file with `-q`: only the failures and errors are named.
pub const PYTEST_Q: &str = r#".FsxX.F..E                                                               [100%]
==================================== ERRORS ====================================
_________________________ ERROR at setup of test_error _________________________

    @pytest.fixture
    def broken():
>       raise RuntimeError("boom")
E       RuntimeError: boom

tests/test_x.py:31: RuntimeError
=================================== FAILURES ===================================
__________________________________ test_fail ___________________________________

    def test_fail():
>       assert 1 + 1 == 3
E       assert (1 + 1) == 3

tests/test_x.py:7: AssertionError
________________________________ test_param[2] _________________________________

n = 2

    @pytest.mark.parametrize("n", [1, 2, "a b"])
    def test_param(n):
>       assert n != 2
E       assert 2 != 2

tests/test_x.py:23: AssertionError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_fail - assert (1 + 1) == 3
FAILED tests/test_x.py::test_param[2] - assert 2 != 2
ERROR tests/test_x.py::test_error - RuntimeError: boom
2 failed, 4 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.04s
"#;

/// `-q` over a folder where one test file cannot be imported.
pub const PYTEST_COLLECTION_ERROR: &str = r#"
==================================== ERRORS ====================================
______________________ ERROR collecting tests/test_bad.py ______________________
ImportError while importing test module '/tmp/suite-cap/pybad/tests/test_bad.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_bad.py:1: in <module>
    import nothere
E   ModuleNotFoundError: No module named 'nothere'
=========================== short test summary info ============================
ERROR tests/test_bad.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
1 error in 0.06s
"#;

/// `node --test` (Node 20, stdout not a terminal: TAP) over a file with a pass, a fail, a skip, two todos (one failing), a describe with a nested describe, and a test with two subtests.
pub const NODE_TAP: &str = r#"TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 1.428184
  ...
# Subtest: fails
not ok 2 - fails
  ---
  duration_ms: 1.324801
  location: '/tmp/suite-cap/js/test/x.test.js:6:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
    
    2 !== 3
    
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 3
  actual: 2
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (/tmp/suite-cap/js/test/x.test.js:6:30)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
    Test.processPendingSubtests (node:internal/test_runner/test:526:18)
    Test.postRun (node:internal/test_runner/test:889:19)
    Test.run (node:internal/test_runner/test:835:12)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
# Subtest: skipped
ok 3 - skipped # SKIP not now
  ---
  duration_ms: 0.138999
  ...
# Subtest: todo passing
ok 4 - todo passing # TODO
  ---
  duration_ms: 0.140261
  ...
# Subtest: todo failing
not ok 5 - todo failing # TODO later
  ---
  duration_ms: 0.156011
  location: '/tmp/suite-cap/js/test/x.test.js:9:1'
  failureType: 'testCodeFailure'
  error: 'x'
  code: 'ERR_TEST_FAILURE'
  stack: |-
    TestContext.<anonymous> (/tmp/suite-cap/js/test/x.test.js:9:55)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
    Test.processPendingSubtests (node:internal/test_runner/test:526:18)
    Test.postRun (node:internal/test_runner/test:889:19)
    Test.run (node:internal/test_runner/test:835:12)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
# Subtest: bucket
    # Subtest: refills
    ok 1 - refills
      ---
      duration_ms: 0.178342
      ...
    # Subtest: inner (a|b)
        # Subtest: caps \# here
        not ok 1 - caps \# here
          ---
          duration_ms: 13.017541
          location: '/tmp/suite-cap/js/test/x.test.js:13:5'
          failureType: 'testCodeFailure'
          error: |-
            The expression evaluated to a falsy value:
            
              assert.ok(false)
            
          code: 'ERR_ASSERTION'
          name: 'AssertionError'
          expected: true
          actual: false
          operator: '=='
          stack: |-
            TestContext.<anonymous> (/tmp/suite-cap/js/test/x.test.js:13:38)
            Test.runInAsyncScope (node:async_hooks:206:9)
            Test.run (node:internal/test_runner/test:796:25)
            Test.start (node:internal/test_runner/test:702:17)
            node:internal/test_runner/test:1133:71
            node:internal/per_context/primordials:482:82
            new Promise (<anonymous>)
            new SafePromise (node:internal/per_context/primordials:450:29)
            node:internal/per_context/primordials:482:9
            Array.map (<anonymous>)
          ...
        1..1
    not ok 2 - inner (a|b)
      ---
      duration_ms: 13.224427
      type: 'suite'
      location: '/tmp/suite-cap/js/test/x.test.js:12:3'
      failureType: 'subtestsFailed'
      error: '1 subtest failed'
      code: 'ERR_TEST_FAILURE'
      ...
    1..2
not ok 6 - bucket
  ---
  duration_ms: 13.789942
  type: 'suite'
  location: '/tmp/suite-cap/js/test/x.test.js:10:1'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  code: 'ERR_TEST_FAILURE'
  ...
# Subtest: parent
    # Subtest: child one
    ok 1 - child one
      ---
      duration_ms: 0.247882
      ...
    # Subtest: child two
    ok 2 - child two
      ---
      duration_ms: 0.223517
      ...
    1..2
ok 7 - parent
  ---
  duration_ms: 0.971862
  ...
1..7
# tests 10
# suites 2
# pass 5
# fail 2
# cancelled 0
# skipped 1
# todo 2
# duration_ms 175.54851
"#;

/// The same file with `--test-name-pattern '^refills$'`: the others are reported as skipped by the pattern.
pub const NODE_TAP_PATTERN: &str = r#"TAP version 13
# Subtest: adds
ok 1 - adds # SKIP test name does not match pattern
  ---
  duration_ms: 1.338857
  ...
# Subtest: fails
ok 2 - fails # SKIP test name does not match pattern
  ---
  duration_ms: 0.138358
  ...
# Subtest: skipped
ok 3 - skipped # SKIP test name does not match pattern
  ---
  duration_ms: 0.115876
  ...
# Subtest: todo passing
ok 4 - todo passing # SKIP test name does not match pattern
  ---
  duration_ms: 0.122068
  ...
# Subtest: todo failing
ok 5 - todo failing # SKIP test name does not match pattern
  ---
  duration_ms: 0.184453
  ...
# Subtest: bucket
    # Subtest: refills
    ok 1 - refills
      ---
      duration_ms: 0.18251
      ...
    # Subtest: inner (a|b)
        # Subtest: caps \# here
        ok 1 - caps \# here # SKIP test name does not match pattern
          ---
          duration_ms: 4.340727
          ...
        1..1
    ok 2 - inner (a|b)
      ---
      duration_ms: 4.597806
      type: 'suite'
      ...
    1..2
ok 6 - bucket
  ---
  duration_ms: 5.152932
  type: 'suite'
  ...
# Subtest: parent
ok 7 - parent # SKIP test name does not match pattern
  ---
  duration_ms: 0.203229
  ...
1..7
# tests 8
# suites 2
# pass 1
# fail 0
# cancelled 0
# skipped 7
# todo 0
# duration_ms 158.14071
"#;

/// `node --test` over a folder where one test file is not JavaScript.
pub const NODE_TAP_SYNTAX_ERROR: &str = r#"TAP version 13
# Subtest: fine
ok 1 - fine
  ---
  duration_ms: 1.344198
  ...
# /tmp/suite-cap/jsbad/test/b.test.js:1
# this is not javascript(
#      ^^
# SyntaxError: Unexpected identifier 'is'
#     at wrapSafe (node:internal/modules/cjs/loader:1464:18)
#     at Module._compile (node:internal/modules/cjs/loader:1495:20)
#     at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
#     at Module.load (node:internal/modules/cjs/loader:1266:32)
#     at Module._load (node:internal/modules/cjs/loader:1091:12)
#     at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
#     at node:internal/main/run_main_module:28:49
# Node.js v20.20.2
# Subtest: /tmp/suite-cap/jsbad/test/b.test.js
not ok 2 - /tmp/suite-cap/jsbad/test/b.test.js
  ---
  duration_ms: 126.061284
  location: '/tmp/suite-cap/jsbad/test/b.test.js:1:1'
  failureType: 'testCodeFailure'
  exitCode: 1
  signal: ~
  error: 'test failed'
  code: 'ERR_TEST_FAILURE'
  ...
1..2
# tests 2
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 0
# todo 0
# duration_ms 320.674104
"#;

/// `cargo test --offline --no-fail-fast` over a crate with unit tests (pass, fail, two ignored), an integration test file (pass, fail) and a doc test: standard output.
pub const CARGO_STDOUT: &str = r#"
running 4 tests
test tests::net ... ignored, needs network
test tests::slow ... ignored
test tests::refill_is_capped ... ok
test tests::wrong ... FAILED

failures:

---- tests::wrong stdout ----

thread 'tests::wrong' (16414) panicked at src/lib.rs:13:18:
assertion `left == right` failed
  left: 2
 right: 3
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    tests::wrong

test result: FAILED. 1 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s


running 2 tests
test integration_ok ... ok
test integration_fails ... FAILED

failures:

---- integration_fails stdout ----

thread 'integration_fails' (16416) panicked at tests/bucket.rs:4:26:
no
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    integration_fails

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s


running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.15s

"#;

/// ... and its standard error (cargo's headers).
pub const CARGO_STDERR: &str = r#"    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s
     Running unittests src/lib.rs (/tmp/suite-cap/rs-tgt/debug/deps/bucket-b0d7ffe9cb31fa9c)
error: test failed, to rerun pass `--lib`
     Running tests/bucket.rs (/tmp/suite-cap/rs-tgt/debug/deps/bucket-6c335ee265b2544f)
error: test failed, to rerun pass `--test bucket`
   Doc-tests bucket
error: 2 targets failed:
    `--lib`
    `--test bucket`
"#;

/// `cargo test --offline` over a crate that does not compile: standard error (standard output was empty).
pub const CARGO_BUILD_ERROR_STDERR: &str = r#"   Compiling bad v0.1.0 (/tmp/suite-cap/rsbad)
error[E0425]: cannot find value `undefined_name` in this scope
 --> src/lib.rs:1:21
  |
1 | pub fn f() -> u32 { undefined_name }
  |                     ^^^^^^^^^^^^^^ not found in this scope

For more information about this error, try `rustc --explain E0425`.
error: could not compile `bad` (lib) due to 1 previous error
warning: build failed, waiting for other jobs to finish...
error: could not compile `bad` (lib test) due to 1 previous error
"#;

/// `node --test` over a file with a describe whose `before` hook throws and one whose `after` hook
/// throws.
pub const NODE_TAP_HOOKS: &str = r#"TAP version 13
# Subtest: setup breaks
    # Subtest: uses db
    not ok 1 - uses db
      ---
      duration_ms: 0
      location: '/tmp/suite-cap/jshook/test/h.test.js:4:3'
      failureType: 'cancelledByParent'
      error: 'test did not finish before its parent and was cancelled'
      code: 'ERR_TEST_FAILURE'
      ...
    1..1
not ok 1 - setup breaks
  ---
  duration_ms: 1.547326
  type: 'suite'
  location: '/tmp/suite-cap/jshook/test/h.test.js:2:1'
  failureType: 'hookFailed'
  error: 'no db'
  code: 'ERR_TEST_FAILURE'
  stack: |-
    SuiteContext.<anonymous> (/tmp/suite-cap/jshook/test/h.test.js:3:24)
    TestHook.runInAsyncScope (node:async_hooks:206:9)
    TestHook.run (node:internal/test_runner/test:796:25)
    TestHook.run (node:internal/test_runner/test:1041:18)
    TestHook.run (node:internal/util:527:20)
    Suite.runHook (node:internal/test_runner/test:723:20)
    Suite.run (node:internal/test_runner/test:1129:18)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
# Subtest: teardown breaks
    # Subtest: works
    ok 1 - works
      ---
      duration_ms: 0.233125
      ...
    1..1
not ok 2 - teardown breaks
  ---
  duration_ms: 0.694926
  type: 'suite'
  location: '/tmp/suite-cap/jshook/test/h.test.js:6:1'
  failureType: 'hookFailed'
  error: 'cleanup'
  code: 'ERR_TEST_FAILURE'
  stack: |-
    SuiteContext.<anonymous> (/tmp/suite-cap/jshook/test/h.test.js:7:23)
    TestHook.runInAsyncScope (node:async_hooks:206:9)
    TestHook.run (node:internal/test_runner/test:796:25)
    TestHook.run (node:internal/test_runner/test:1041:18)
    TestHook.run (node:internal/util:527:20)
    Suite.runHook (node:internal/test_runner/test:723:20)
    node:internal/test_runner/test:1113:38
    node:internal/util:527:20
    Suite.run (node:internal/test_runner/test:1136:13)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
1..2
# tests 2
# suites 2
# pass 1
# fail 0
# cancelled 1
# skipped 0
# todo 0
# duration_ms 262.461844
"#;
