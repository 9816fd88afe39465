// The doctest runner of the whole suite; ctest runs each test case as its own test.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
