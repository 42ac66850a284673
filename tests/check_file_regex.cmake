# Checks a file a command wrote: it exists, matches EXPECT_REGEX and, when given, not REJECT_REGEX.
#   cmake -DFILE=path -DEXPECT_REGEX="..." [-DREJECT_REGEX="..."] -P check_file_regex.cmake
if(NOT EXISTS "${FILE}")
    message(FATAL_ERROR "${FILE} was not written")
endif()
file(READ "${FILE}" text)
if(DEFINED EXPECT_REGEX AND NOT text MATCHES "${EXPECT_REGEX}")
    message(FATAL_ERROR "${FILE} does not match '${EXPECT_REGEX}'\n--- file ---\n${text}")
endif()
if(DEFINED REJECT_REGEX AND text MATCHES "${REJECT_REGEX}")
    message(FATAL_ERROR "${FILE} matches '${REJECT_REGEX}', which it must not\n--- file ---\n${text}")
endif()
message(STATUS "ok: ${FILE}")
