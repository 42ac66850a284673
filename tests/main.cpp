// doctest's main and nothing else; every area has its own tests/test_<area>.cpp.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
