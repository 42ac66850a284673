// "What the kernel did" on the example: from the trace the check records of block 0 (every load
// and store of its threads, puzzles::TraceAccess), each buffer drawn as a grid of large cells, one
// per element, coloured by the warp of the thread that wrote it (outputs) or first read it
// (inputs) and labelled with that thread's index, as the convolution lesson's block trace draws
// its shared tile (app/views/conv2d/conv2d_block_trace.cpp: the same warp colours); an output
// element whose value is wrong is crossed out; a 2-D buffer is drawn with its rows; shared memory
// 32 words to a row, so a column is a bank. Beside it the simulator's counts (draw_counters).
// Checked by eye in the screenshots.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "puzzle_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// Cells drawn per buffer at most; the note under it says how many more there are.
constexpr int64_t kMaxCells = 1024;

// The convolution block trace's warp colours (8 hues).
ImU32 warp_colour(int warp, float alpha = 1.0f) {
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(warp % 8) / 8.0f, 0.55f, 0.85f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

constexpr ImU32 kUntouched = IM_COL32(58, 58, 62, 255);

struct BufferCells {
    std::string title;
    int64_t count = 0;
    std::vector<int> thread;       // the writer (output) or the first reader (input); -1: none in block 0
    std::vector<char> several;     // read by more than one thread
    std::vector<char> wrong;       // an output element whose value differs from the reference's
    int64_t last_touched = -1;
    int columns = 32;
};

// Columns for a buffer of `count` elements: a matrix's row length when a variable of the case
// divides it into several rows of at most 64, else 32 (or fewer for a short buffer).
int columns_for(const puzzles::Case* k, int64_t count) {
    if (k) {
        for (const char* name : {"width", "cols", "columns", "w", "n", "k"}) {
            const auto it = k->vars.find(name);
            if (it == k->vars.end()) continue;
            const int64_t v = it->second;
            if (v > 1 && v <= 64 && count % v == 0 && count / v > 1) return static_cast<int>(v);
        }
    }
    return static_cast<int>(std::clamp<int64_t>(count, 1, 32));
}

bool same_value(const std::byte* got, const std::byte* want, puzzles::ElemType e, double tolerance) {
    if (e == puzzles::ElemType::I32) return std::memcmp(got, want, 4) == 0;
    float g, w;
    std::memcpy(&g, got, 4);
    std::memcpy(&w, want, 4);
    return (std::isnan(g) && std::isnan(w)) || std::fabs(g - w) <= tolerance * std::max(1.0f, std::fabs(w));
}

// One grid of cells at the cursor; returns nothing, advances the cursor past it.
void draw_cells(const BufferCells& b, float width, float max_cell) {
    const float fs = ImGui::GetFontSize();
    ImGui::TextUnformatted(b.title.c_str());
    const int64_t shown = std::min<int64_t>(b.count, kMaxCells);
    if (shown <= 0) return;
    const int cols = std::max(1, b.columns);
    const int64_t rows = (shown + cols - 1) / cols;
    const float cell = std::floor(std::clamp((width - 2.0f) / static_cast<float>(cols), 3.0f, max_cell));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const bool numbers = cell >= fs * 1.3f;
    for (int64_t i = 0; i < shown; ++i) {
        const float x = o.x + static_cast<float>(i % cols) * cell, y = o.y + static_cast<float>(i / cols) * cell;
        const ImVec2 a{x, y}, z{x + cell - 1.0f, y + cell - 1.0f};
        const int who = b.thread[static_cast<std::size_t>(i)];
        dl->AddRectFilled(a, z, who < 0 ? kUntouched : warp_colour(who / 32));
        if (numbers && who >= 0) {
            char txt[12];
            std::snprintf(txt, sizeof txt, "%d", who);
            const ImVec2 ts = ImGui::CalcTextSize(txt);
            const float k = std::min(1.0f, (cell - 4.0f) / std::max(ts.x, 1.0f));
            dl->AddText(nullptr, fs * k, {x + (cell - 1.0f - ts.x * k) * 0.5f, y + (cell - 1.0f - fs * k) * 0.5f},
                        IM_COL32(15, 15, 15, 255), txt);
        }
        if (b.several[static_cast<std::size_t>(i)])
            dl->AddCircleFilled({z.x - cell * 0.16f, a.y + cell * 0.16f}, std::max(1.5f, cell * 0.09f), IM_COL32(15, 15, 15, 255));
        if (b.wrong[static_cast<std::size_t>(i)]) {
            const ImU32 red = ImGui::GetColorU32(static_cast<ImVec4>(kErrorColour));
            const float t = std::max(1.5f, cell * 0.08f);
            dl->AddLine({a.x + 2, a.y + 2}, {z.x - 2, z.y - 2}, red, t);
            dl->AddLine({a.x + 2, z.y - 2}, {z.x - 2, a.y + 2}, red, t);
            dl->AddRect(a, z, red, 0, 0, t);
        }
    }
    ImGui::Dummy({cell * static_cast<float>(std::min<int64_t>(cols, shown)), cell * static_cast<float>(rows)});
    if (b.count > shown)
        ImGui::TextColored(kMutedColour, "the first %lld of %lld elements", static_cast<long long>(shown),
                           static_cast<long long>(b.count));
}

// `used`: the warps that touched memory in block 0 (the legend lists only those).
void legend(const std::vector<int>& used, bool any_wrong, bool any_several, float width) {
    const float fs = ImGui::GetFontSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGui::BeginGroup();
    const float x0 = ImGui::GetCursorPosX();
    for (std::size_t k = 0; k < used.size() && k < 8; ++k) {
        const int w = used[k];
        char t[48];
        std::snprintf(t, sizeof t, "warp %d (threads %d-%d)", w, w * 32, w * 32 + 31);
        if (k > 0) ImGui::SameLine(0, fs * 0.8f);
        const float item_w = fs * 0.9f + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(t).x;
        if (k > 0 && ImGui::GetCursorPosX() - x0 + item_w > width) ImGui::NewLine();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled({p.x, p.y + fs * 0.1f}, {p.x + fs * 0.8f, p.y + fs * 0.9f}, warp_colour(w));
        ImGui::Dummy({fs * 0.9f, fs});
        ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::TextUnformatted(t);
    }
    if (used.size() > 8) {
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "and %zu more warps (the colours repeat every 8)", used.size() - 8);
    }
    auto item = [&](const char* text, auto draw) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        draw(p);
        ImGui::Dummy({fs * 0.9f, fs});
        ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
        ImGui::TextColored(kMutedColour, "%s", text);
    };
    item("not touched by block 0", [&](ImVec2 p) { dl->AddRectFilled({p.x, p.y + fs * 0.1f}, {p.x + fs * 0.8f, p.y + fs * 0.9f}, kUntouched); });
    if (any_several) {
        ImGui::SameLine(0, fs * 0.8f);
        item("read by several threads", [&](ImVec2 p) {
            dl->AddCircleFilled({p.x + fs * 0.4f, p.y + fs * 0.5f}, fs * 0.16f, IM_COL32(220, 220, 220, 255));
        });
    }
    if (any_wrong) {
        ImGui::SameLine(0, fs * 0.8f);
        item("wrong value", [&](ImVec2 p) {
            const ImU32 red = ImGui::GetColorU32(static_cast<ImVec4>(kErrorColour));
            dl->AddLine({p.x + 2, p.y + 3}, {p.x + fs * 0.8f - 2, p.y + fs * 0.9f - 2}, red, 2.0f);
            dl->AddLine({p.x + 2, p.y + fs * 0.9f - 2}, {p.x + fs * 0.8f - 2, p.y + 3}, red, 2.0f);
        });
    }
    ImGui::EndGroup();
}

}  // namespace

void PuzzleView::draw_trace(const puzzles::CaseOutcome& c, float width) {
    const puzzles::CaseReport& r = c.report;
    const puzzles::JobCase& job = c.inputs;
    const puzzles::Puzzle& p = *slot_->puzzle;
    const float fs = ImGui::GetFontSize();
    const puzzles::Case* vcase = nullptr;
    for (const puzzles::Case& k : p.cases)
        if (k.visible && k.name == c.name) vcase = &k;
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (r.trace.empty()) {
        ImGui::TextColored(kMutedColour, "%s",
                           r.clean ? "Block 0 made no memory access on the example, so there is nothing to draw."
                                   : "The example stopped at a defect (the result says which), so there is no record "
                                     "of block 0's accesses to draw.");
        ImGui::PopTextWrapPos();
        return;
    }
    std::vector<BufferCells> global(job.buffers.size());
    BufferCells shared;
    bool any_wrong = false, any_several = false;
    for (std::size_t b = 0; b < job.buffers.size(); ++b) {
        const puzzles::JobBuffer& jb = job.buffers[b];
        BufferCells& bc = global[b];
        bc.count = jb.count;
        const std::size_t n = static_cast<std::size_t>(std::min<int64_t>(jb.count, kMaxCells));
        bc.thread.assign(n, -1);
        bc.several.assign(n, 0);
        bc.wrong.assign(n, 0);
        bc.columns = columns_for(vcase, jb.count);
        if (jb.output && b < r.outputs.size() && b < c.expected.size()) {
            const auto& got = r.outputs[b];
            const auto& want = c.expected[b];
            for (std::size_t i = 0; i < n && (i + 1) * 4 <= got.size() && (i + 1) * 4 <= want.size(); ++i) {
                bc.wrong[i] = !same_value(&got[i * 4], &want[i * 4], jb.elem, p.tolerance);
                any_wrong = any_wrong || bc.wrong[i];
            }
        }
    }
    int64_t shared_words = 0;
    for (const puzzles::TraceAccess& e : r.trace)
        if (e.shared) shared_words = std::max(shared_words, e.element + 1);
    shared.count = std::min<int64_t>(shared_words, kMaxCells);
    shared.thread.assign(static_cast<std::size_t>(shared.count), -1);
    shared.several.assign(static_cast<std::size_t>(shared.count), 0);
    shared.wrong.assign(static_cast<std::size_t>(shared.count), 0);
    shared.columns = static_cast<int>(std::clamp<int64_t>(shared.count, 1, 32));
    for (const puzzles::TraceAccess& e : r.trace) {
        BufferCells* bc = e.shared ? &shared
                          : e.buffer >= 0 && e.buffer < static_cast<int>(global.size()) ? &global[static_cast<std::size_t>(e.buffer)]
                                                                                      : nullptr;
        if (!bc || e.element < 0 || e.element >= static_cast<int64_t>(bc->thread.size())) continue;
        const std::size_t i = static_cast<std::size_t>(e.element);
        const bool output = !e.shared && job.buffers[static_cast<std::size_t>(e.buffer)].output;
        // Outputs (and shared words) show who wrote them; inputs who read them.
        if (output || e.shared) {
            if (e.store && (bc->thread[i] < 0 || !e.shared)) bc->thread[i] = e.thread;  // shared: the first store
        } else if (!e.store) {
            if (bc->thread[i] < 0) bc->thread[i] = e.thread;
            else if (bc->thread[i] != e.thread) bc->several[i] = 1, any_several = true;
        }
        bc->last_touched = std::max(bc->last_touched, e.element);
    }
    // Draw each buffer as far as block 0 reached, but whole when short.
    for (std::size_t b = 0; b < global.size(); ++b) {
        BufferCells& bc = global[b];
        const puzzles::JobBuffer& jb = job.buffers[b];
        const int64_t reach = bc.count <= 256 ? bc.count : std::max<int64_t>(bc.last_touched + 1, std::min<int64_t>(bc.count, 32));
        const int64_t rounded = std::min(bc.count, (reach + bc.columns - 1) / bc.columns * bc.columns);
        std::string shape = std::to_string(jb.count) + (jb.elem == puzzles::ElemType::F32 ? " floats" : " ints");
        if (bc.columns != 32 && bc.columns > 1 && bc.count / bc.columns > 1)
            shape += ", " + std::to_string(bc.count / bc.columns) + " rows of " + std::to_string(bc.columns);
        bc.title = jb.name + " (" + (jb.output ? "output, " : "input, ") + shape + "): the thread that " +
                   (jb.output ? "wrote" : "read") + " each element";
        bc.count = std::min(rounded, bc.count);
    }
    char head[200];
    std::snprintf(head, sizeof head, "Block 0 of the example (%u x %u x %u threads, grid %u x %u x %u): which thread touched "
                  "which element. The number is the thread's index in the block.",
                  job.block[0], job.block[1], job.block[2], job.grid[0], job.grid[1], job.grid[2]);
    ImGui::TextWrapped("%s", head);
    std::vector<int> used;
    for (const puzzles::TraceAccess& e : r.trace) used.push_back(e.thread / 32);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    legend(used, any_wrong, any_several, width);
    ImGui::Spacing();
    // Large cells with the thread's number for a short buffer; smaller ones (numbers while they
    // fit) for a long one, so a matrix is not pages tall.
    const auto max_cell = [&](const BufferCells& bc) { return bc.count <= 64 ? fs * 2.4f : fs * 1.5f; };
    for (std::size_t b = 0; b < global.size(); ++b) {
        // Inputs first, then outputs: the order the kernel uses them.
        if (job.buffers[b].output) continue;
        draw_cells(global[b], width, max_cell(global[b]));
    }
    if (shared.count > 0) {
        shared.title = "__shared__ memory: the thread that stored each word first  (" + std::to_string(shared_words) +
                       " words; a column is a bank)";
        draw_cells(shared, width, max_cell(shared));
    }
    for (std::size_t b = 0; b < global.size(); ++b)
        if (job.buffers[b].output) draw_cells(global[b], width, max_cell(global[b]));
    ImGui::PopTextWrapPos();
}

std::string PuzzleView::what_it_did_heading() const {
    const PuzzleCheck* c = slot_ ? slot_->check.get() : nullptr;
    return c && c->of_reference ? "What the reference solution did on the example" : "What the kernel did on the example";
}

void PuzzleView::draw_what_it_did(float width, const Fonts& fonts, bool heading) {
    const float fs = ImGui::GetFontSize();
    const PuzzleCheck* c = slot_ ? slot_->check.get() : nullptr;
    if (heading) {
        if (fonts.bold) ImGui::PushFont(fonts.bold);
        ImGui::TextUnformatted(what_it_did_heading().c_str());
        if (fonts.bold) ImGui::PopFont();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    const puzzles::CaseOutcome* example = nullptr;
    if (c)
        for (const puzzles::CaseOutcome& k : c->result.cases)
            if (k.visible && k.ran && !example) example = &k;
    if (!c || !c->result.compiled || !example) {
        ImGui::TextColored(kMutedColour, "%s",
                           !c ? "After a check, this shows which thread of block 0 touched which element on the "
                                "example, and the simulator's counts: warps that diverged, memory sectors per request, "
                                "shared-memory bank conflicts."
                              : !c->result.compiled ? "The kernel did not compile, so it did nothing yet."
                                                    : "The example did not run to its end: the defects say why.");
        ImGui::PopTextWrapPos();
        return;
    }
    ImGui::PopTextWrapPos();
    const float counts_w = std::min(width, fs * 21.0f);
    if (width >= fs * 48.0f) {
        ImGui::BeginGroup();
        draw_counters(*example, counts_w);
        ImGui::EndGroup();
        ImGui::SameLine(0, fs * 1.2f);
        ImGui::BeginGroup();
        draw_trace(*example, width - counts_w - fs * 1.2f);
        ImGui::EndGroup();
    } else {
        draw_trace(*example, width);
        ImGui::Spacing();
        draw_counters(*example, counts_w);
    }
}

}  // namespace gpulab::app
