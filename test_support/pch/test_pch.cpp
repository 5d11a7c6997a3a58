// The object the tests' precompiled header is built with (CMakeLists.txt, pdt_test_pch): nothing
// of its own.
