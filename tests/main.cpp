// doctest's main, plus one guard. CTest runs each test case on its own, as
// `gpulab_tests --test-case=NAME` (doctest_discover_tests). A name with ',' (doctest's filter
// separator) or ';' (CMake's list separator) becomes a filter that matches nothing, and doctest
// calls a run of nothing a success: a failing test then passed in CTest for a whole session. So a
// run asked for particular test cases that ran none of them fails, naming the filter. Every area
// has its own tests/test_<area>.cpp.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int g_cases_matched = -1;  // -1: no run ended (a query such as --list-test-cases)

// A listener that only remembers how many test cases passed the filters.
struct MatchCounter : doctest::IReporter {
    explicit MatchCounter(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& s) override {
        g_cases_matched = static_cast<int>(s.numTestCasesPassingFilters);
    }
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("match-counter", 1, MatchCounter);

// The value of a --test-case= / -tc= option, or null.
const char* test_case_filter(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        for (const char* prefix : {"--test-case=", "-tc=", "--dt-test-case=", "--dt-tc="}) {
            if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return argv[i] + std::strlen(prefix);
        }
    }
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    // The suite's own cache and config folders under the build (tests/CMakeLists.txt): no test
    // reads or writes the user's trained parameters, compiled kernels or settings (issue 43).
    ::setenv("XDG_CACHE_HOME", GPULAB_TEST_HOME_DIRS "/cache", 1);
    ::setenv("XDG_CONFIG_HOME", GPULAB_TEST_HOME_DIRS "/config", 1);
    doctest::Context context(argc, argv);
    const int rc = context.run();
    if (context.shouldExit()) return rc;
    const char* filter = test_case_filter(argc, argv);
    if (rc == 0 && filter && g_cases_matched == 0) {
        std::fprintf(stderr,
                     "gpulab_tests: no test case matches --test-case=%s (a test name must not contain ',' or ';': "
                     "doctest and CMake split it there)\n",
                     filter);
        return 1;
    }
    return rc;
}
