// What `gpulab train --workers` makes of mpirun's own messages. mpirun explains a failed job in a
// framed block of a dozen lines (which worker died, on which signal, how the job was aborted); the
// launcher (app/cli/cli_train_launch.cpp) keeps those off the terminal and says it in one sentence
// instead, while the workers' own sentences (they start with "gpulab") pass through. Plain text in,
// plain text out, so the wording is tested without mpirun (tests/test_distributed.cpp).
#pragma once

#include <string>
#include <string_view>

namespace gpulab::distributed {

// A line a worker wrote for the user ("gpulab train: ..."), as opposed to mpirun's own.
bool is_worker_sentence(std::string_view line);

// One sentence (no "gpulab train: " prefix, no newline) for a job that mpirun ended with
// `exit_code`, from everything mpirun wrote on stderr: a worker killed by a signal, a worker that
// failed, an abort, too few slots; else mpirun's first line of explanation.
std::string mpirun_failure_sentence(std::string_view mpirun_text, int exit_code);

}  // namespace gpulab::distributed
