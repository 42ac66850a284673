// The layout check's view of table cells (app/cli/layout_check.h, app/widgets/cell_text.h), on a
// plain ImGui context with no window and no GL: a frame is laid out, never drawn. A table with a
// column planted too narrow for its text must be named, with the text and its row; the same table
// with its column sized to its content must pass.
#include <doctest/doctest.h>

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

#include "cli/layout_check.h"
#include "widgets/cell_text.h"

using namespace gpulab::app;

namespace {

constexpr const char* kLong = "41.2 GB/s = 104 % of 39.8 GB/s copy";

// One ImGui context for the test, its font atlas built on the CPU (nothing is uploaded).
struct Context {
    Context() {
        ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.DisplaySize = {800, 600};
        unsigned char* px = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);
        set_cell_text_notes(true);
    }
    ~Context() {
        set_cell_text_notes(false);
        ImGui::DestroyContext();
    }
    // A few frames, as the export draws: auto-fitting columns take their width from the frame before.
    void frames(const std::function<void()>& body) {
        for (int i = 0; i < 3; ++i) {
            ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
            ImGui::NewFrame();
            ImGui::SetNextWindowPos({0, 0});
            ImGui::SetNextWindowSize({600, 400});
            ImGui::Begin("Canvas", nullptr, ImGuiWindowFlags_NoSavedSettings);
            body();
            ImGui::End();
            ImGui::Render();
        }
    }
};

// A table "##planted" whose second column is `second` wide (0: sized to its content).
void planted_table(float second, bool through_helper) {
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##planted", 2, flags)) return;
    ImGui::TableSetupColumn("backend");
    ImGui::TableSetupColumn("rate", ImGuiTableColumnFlags_WidthFixed, second);
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    cell_text("cpu-scalar");
    ImGui::TableNextColumn();
    if (through_helper)
        cell_textf("%s", kLong);
    else
        ImGui::TextUnformatted(kLong);
    ImGui::EndTable();
}

std::string all(const std::vector<CellOverflow>& v) {
    std::string s;
    for (const CellOverflow& o : v) s += describe(o) + "\n";
    return s;
}

}  // namespace

TEST_SUITE("ui") {

TEST_CASE("layout check names text cut in a table cell too narrow for it") {
    Context ctx;
    ctx.frames([] { planted_table(60.0f, true); });
    const std::vector<CellOverflow> cut = cell_overflows();
    INFO(all(cut));
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].window.rfind("Canvas", 0) == 0);
    CHECK(cut[0].cell == "column 'rate', row 1");
    CHECK(cut[0].text == kLong);
    CHECK(cut[0].wider_px > 100.0f);
    CHECK(describe(cut[0]).find(std::string("\"") + kLong + "\"") != std::string::npos);
}

TEST_CASE("layout check names the column of a too-narrow cell drawn without the helper") {
    Context ctx;
    ctx.frames([] { planted_table(60.0f, false); });
    const std::vector<CellOverflow> cut = cell_overflows();
    INFO(all(cut));
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].cell == "column 'rate'");
    CHECK(cut[0].text.empty());
    CHECK(cut[0].wider_px > 100.0f);
}

TEST_CASE("layout check names a header cut by its column") {
    Context ctx;
    ctx.frames([] {
        if (!ImGui::BeginTable("##header", 1, ImGuiTableFlags_SizingFixedFit)) return;
        ImGui::TableSetupColumn("throughput vs measured limit", ImGuiTableColumnFlags_WidthFixed, 40.0f);
        ImGui::TableHeadersRow();
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        cell_text("1.2");
        ImGui::EndTable();
    });
    const std::vector<CellOverflow> cut = cell_overflows();
    INFO(all(cut));
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].cell == "header 'throughput vs measured limit'");
}

TEST_CASE("layout check passes the same table with its column sized to its content") {
    Context ctx;
    ctx.frames([] { planted_table(0.0f, true); });
    const std::vector<CellOverflow> cut = cell_overflows();
    INFO(all(cut));
    CHECK(cut.empty());
}

TEST_CASE("layout check sees no cells outside tables and with the notes off") {
    Context ctx;
    ctx.frames([] { cell_text(std::string(200, 'x')); });
    CHECK(cell_overflows().empty());
    set_cell_text_notes(false);
    ctx.frames([] { planted_table(60.0f, true); });
    const std::vector<CellOverflow> cut = cell_overflows();
    REQUIRE(cut.size() == 1);
    CHECK(cut[0].text.empty());  // still found by its column, but the text was not noted
}

}  // TEST_SUITE
