// The packed FP32 product's outer loops (see gemm_packed.h): the blocks of k and n, the packing of B,
// the tasks of C on the thread pool, and which instruction set's kernel runs. Compiled with the
// baseline flags: only the packers and the kernels inside gemm_packed_isa_*.cpp use wider registers.
#include "gemm_packed.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include <sys/mman.h>

#include "gemm_packed_isa.h"
#include "runtime/thread_pool.h"

namespace gpulab::cpu {

namespace {

using packed_detail::PackedKernel;

std::int64_t ceil_div(std::int64_t x, std::int64_t y) { return (x + y - 1) / y; }
std::int64_t round_up(std::int64_t x, std::int64_t multiple) { return ceil_div(x, multiple) * multiple; }

// Packed blocks, kept between calls: a fresh 6 MiB panel per product would be faulted in page by page
// every time (the cost that made an untuned PyTorch 4x slower on these machines, issue 45). 64-byte
// aligned, so a packed row of B is whole cache lines. From 2 MiB up, aligned to 2 MiB and offered to
// Linux as huge pages (MADV_HUGEPAGE; Debian's kernels give them only where asked): the 6 MiB panel
// of B is then 3 TLB entries, not 1,536, beside A's block and C's rows. At 4096^3 on 2 threads that
// moved ours / OpenBLAS from 0.91-1.08x to 1.06-1.15x (four interleaved runs each); 2048^3 level.
class PackBuffer {
public:
    PackBuffer() = default;
    PackBuffer(const PackBuffer&) = delete;
    PackBuffer& operator=(const PackBuffer&) = delete;
    ~PackBuffer() { std::free(data_); }
    float* floats(std::int64_t count) {
        if (count > capacity_) {
            std::free(data_);
            const std::int64_t bytes = count * static_cast<std::int64_t>(sizeof(float));
            const std::int64_t align = bytes >= kHugePage ? kHugePage : 64;
            data_ = static_cast<float*>(std::aligned_alloc(align, static_cast<std::size_t>(round_up(bytes, align))));
            if (data_ == nullptr) throw std::bad_alloc();
            // Only a hint: where the kernel says no, the buffer is ordinary pages and works the same.
            if (align == kHugePage) madvise(data_, static_cast<std::size_t>(round_up(bytes, align)), MADV_HUGEPAGE);
            capacity_ = count;
        }
        return data_;
    }

private:
    static constexpr std::int64_t kHugePage = std::int64_t{2} << 20;
    float* data_ = nullptr;
    std::int64_t capacity_ = 0;
};

const PackedKernel& kernel_for(SimdIsa isa) {
    if (isa == SimdIsa::Avx512 && packed_detail::avx512_packed()) return *packed_detail::avx512_packed();
    if (isa != SimdIsa::Baseline && packed_detail::avx2_packed()) return *packed_detail::avx2_packed();
    return *packed_detail::baseline_packed();
}

const PackedKernel& chosen_kernel() {
    static const PackedKernel& k = kernel_for(best_simd_isa());
    return k;
}

// How one kc x nc panel of B is cut into tasks of C: row blocks of `mc` rows (a multiple of MR), each
// split into `pieces` column pieces of `width` columns (a multiple of NR).
struct TaskGrid {
    std::int64_t mc = 0, row_blocks = 0, width = 0, pieces = 0;
};

// Tasks taken per thread between two waits for all threads, where the matrix has rows for them.
constexpr std::int64_t kTasksPerThread = 4;

// With one thread: blocks of the kernel's mc. With several, about kTasksPerThread row blocks per
// thread (at least 4 micro-tiles high), a multiple of the threads: every kc run ends with all threads
// waiting for the last task, so when another program slows one core for a while, the other takes more
// of the small tasks instead of idling behind one big one (1024 rows on 2 threads: seven blocks of 140
// rows and one of 44, not 336, 336, 336 and 16). Packing A costs the same either way (each row is
// packed once per kc run). Then the columns are split if there are still too few tasks (a short C).
TaskGrid task_grid(const PackedKernel& kernel, std::int64_t rows, std::int64_t cols, int threads) {
    TaskGrid g;
    std::int64_t blocks = ceil_div(rows, kernel.mc);
    if (threads > 1)
        blocks =
            round_up(std::max(blocks, std::min(kTasksPerThread * threads, ceil_div(rows, 4 * kernel.mr))), threads);
    g.mc = round_up(ceil_div(rows, blocks), kernel.mr);
    g.row_blocks = ceil_div(rows, g.mc);
    const std::int64_t panels = ceil_div(cols, kernel.nr);
    g.pieces = threads > 1 ? std::min(panels, std::max<std::int64_t>(1, ceil_div(2 * threads, g.row_blocks))) : 1;
    g.width = ceil_div(panels, g.pieces) * kernel.nr;
    g.pieces = ceil_div(cols, g.width);
    return g;
}

void run(const PackedKernel& kernel, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a,
         std::int64_t a_row, std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
         bool accumulate, bool all_cores) {
    if (rows <= 0 || cols <= 0) return;
    if (k <= 0) {
        if (!accumulate)
            for (std::int64_t i = 0; i < rows; ++i) std::fill(c + i * ldc, c + i * ldc + cols, 0.0f);
        return;
    }
    ThreadPool& pool = ThreadPool::shared();
    const int threads = all_cores ? pool.size() : 1;
    const std::int64_t nr = kernel.nr;
    // Panels of B of equal width: 4096 columns with an nc of 4080 are two panels of 2064, not 4080 and a
    // 16-column sliver that would cost a whole second packing of A for 0.4 % of the work.
    const std::int64_t panel_count = ceil_div(cols, kernel.nc);
    const std::int64_t panel_cols = round_up(ceil_div(cols, panel_count), nr);
    thread_local PackBuffer b_buffer;
    float* packed_b = b_buffer.floats(kernel.kc * panel_cols);

    for (std::int64_t jc = 0; jc < cols; jc += panel_cols) {
        const std::int64_t nc = std::min(panel_cols, cols - jc);
        const TaskGrid grid = task_grid(kernel, rows, nc, threads);
        for (std::int64_t pc = 0; pc < k; pc += kernel.kc) {
            const std::int64_t kc = std::min<std::int64_t>(kernel.kc, k - pc);
            // The first kc run writes C (or adds to it, if asked); the later ones add their part.
            const bool add = accumulate || pc > 0;
            const float* b_block = b + pc * ldb + jc;
            const std::int64_t panels = ceil_div(nc, nr);
            auto pack_panels = [&](std::int64_t begin, std::int64_t end) {
                kernel.pack_b(kc, std::min(end * nr, nc) - begin * nr, b_block + begin * nr, ldb,
                              packed_b + begin * kc * nr);
            };
            auto run_tasks = [&](std::int64_t begin, std::int64_t end) {
                thread_local PackBuffer a_buffer;
                // One vector of slack: pack_a's last store of a panel spills up to a vector past it.
                float* packed_a = a_buffer.floats(kernel.mc * kernel.kc + kernel.nr);
                for (std::int64_t task = begin; task < end; ++task) {
                    const std::int64_t i0 = (task / grid.pieces) * grid.mc, j0 = (task % grid.pieces) * grid.width;
                    const std::int64_t height = std::min(grid.mc, rows - i0), width = std::min(grid.width, nc - j0);
                    kernel.pack_a(height, kc, a + i0 * a_row + pc * a_col, a_row, a_col, packed_a);
                    kernel.macro_kernel(height, width, kc, packed_a, packed_b + (j0 / nr) * kc * nr,
                                        c + i0 * ldc + jc + j0, ldc, add);
                }
            };
            if (threads > 1) {
                pool.parallel_for(panels, pack_panels, ceil_div(panels, 2 * threads));
                pool.parallel_for(grid.row_blocks * grid.pieces, run_tasks, 1);
            } else {
                pack_panels(0, panels);
                run_tasks(0, grid.row_blocks * grid.pieces);
            }
        }
    }
}

}  // namespace

void gemm_packed(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
                 std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 bool all_cores) {
    run(chosen_kernel(), rows, cols, k, a, a_row, a_col, b, ldb, c, ldc, accumulate, all_cores);
}

void gemm_packed_with(SimdIsa isa, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a,
                      std::int64_t a_row, std::int64_t a_col, const float* b, std::int64_t ldb, float* c,
                      std::int64_t ldc, bool accumulate, bool all_cores) {
    run(kernel_for(isa), rows, cols, k, a, a_row, a_col, b, ldb, c, ldc, accumulate, all_cores);
}

PackedGemmShape packed_gemm_shape(SimdIsa isa) {
    const PackedKernel& k = kernel_for(isa);
    return {k.mr, k.nr, k.kc, k.mc, k.nc};
}

const char* gemm_packed_path() {
    static const std::string path = [] {
        const PackedKernel& k = chosen_kernel();
        return std::string(k.isa) + ", " + std::to_string(k.mr) + " x " + std::to_string(k.nr) + " micro-tile";
    }();
    return path.c_str();
}

}  // namespace gpulab::cpu
