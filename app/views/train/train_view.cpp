// The training view's state changes: steps, the tabs, the dropped picture, the predict prompt's
// answer and the export. See train_view.h; runs are in train_jobs.cpp, panels in train_*_panel.cpp.
#include "train_view.h"
#include "views/compare_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "measure/format.h"
#include "io/image_io.h"
#include "train/learning_knobs.h"
#include "views/export.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

TrainView::Panel panel_from(const std::string& name, TrainView::Panel fallback) {
    using P = TrainView::Panel;
    if (name == "model") return P::Model;
    if (name == "samples") return P::Samples;
    if (name == "train") return P::Train;
    if (name == "race") return P::Race;
    if (name == "roofline") return P::Roofline;
    if (name == "layers") return P::Layers;
    if (name == "batch") return P::Batch;
    if (name == "results") return P::Results;
    return fallback;
}

// "about 30x" -> 30; 0 when the choice names no factor ("about the same" -> 1).
double choice_factor(const std::string& choice) {
    if (choice.find("same") != std::string::npos) return 1.0;
    for (std::size_t i = 0; i < choice.size(); ++i)
        if (std::isdigit(static_cast<unsigned char>(choice[i]))) return std::atof(choice.c_str() + i);
    return 0.0;
}

}  // namespace

TrainView::TrainView(ViewHost& host)
    : host_(host), model_(train::make_model(train::kDefaultModelSpec, {1, 28, 28}, 10)) {
    connect_stored_results();
}

// [SECTION] steps

void TrainView::enter_step(const core::LessonStep& step) {
    const auto& p = step.params;
    plan_.backend = core::param_string(p, "backend", plan_.backend);
    plan_.images = core::param_int(p, "images", plan_.images);
    plan_.epochs = static_cast<int>(core::param_int(p, "epochs", plan_.epochs));
    plan_.batch = core::param_int(p, "batch", plan_.batch);
    plan_.race_budget_ns = core::param_int(p, "budget_s", plan_.race_budget_ns / 1'000'000'000) * 1'000'000'000;
    panel_ = panel_from(core::param_string(p, "panel", ""), panel_);
    select_panel_ = true;
    // The roofline step's text speaks of the article's batch and FP32: the tab starts there.
    if (panel_ == Panel::Roofline) {
        roofline_batch_ = train::ArticleFigures::kBatch;
        roofline_precision_ = train::Precision::Fp32;
        roofline_part_ = 0;
    }
    race_part_ = 0;
    predict_ = step.predict;
    pick_ = -1;
    reveal_now_ = false;
    // A step with a run measures only when its tab has nothing yet (nothing whole for its settings in
    // this session or the results store): stepping back and forth in class does not restart a
    // minute of training. A walk over every step (prerun) runs each tab that has nothing. Looked up
    // first, so a picture the step names is classified by the stored run's weights.
    const bool have = find_stored_for_panel();
    // A picture the step names is classified as if it had been dropped on the window.
    if (const std::string picture = core::param_string(p, "image", ""); !picture.empty()) {
        drop_files({picture});
        // A picture that does not decode stops an export with this step, the file and why.
        if (dropped_path_ != picture) host_.step_input_problem = "the step's picture cannot be used: " + host_.error;
    }
    if (!have && (step.action == "run" || host_.measuring_every_step) && panel_ != Panel::Samples) run_on_step_ = true;
}

void TrainView::update(float) {
    if (host_.jobs->busy()) return;
    if (run_on_step_) {
        run_on_step_ = false;
        run_for_panel();
    } else if (panel_ == Panel::Roofline && !peaks_ && !measuring_peaks_) {
        // Opening the tab measures this machine: under a second, so no button stands in the way.
        start_measuring_peaks();
    } else if (!data_ && data_error_.empty() && !loading_) {
        // The samples and the results need the pictures: load them as soon as the worker is free.
        start_loading();
    }
}

void TrainView::show_overview_panel() {
    panel_ = Panel::Train;
    select_panel_ = true;
}

// [SECTION] a dropped picture

void TrainView::drop_files(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    try {
        dropped_ = train::picture_for_model(core::load_image_gray(paths.front()), model_.input.h);
        dropped_path_ = paths.front();
        host_.error.clear();
        host_.info = "dropped " + std::filesystem::path(dropped_path_).filename().string() + ": " + dropped_->note;
    } catch (const std::exception& e) {
        host_.error = e.what();  // the previous picture, if any, stays
        return;
    }
    panel_ = Panel::Results;
    select_panel_ = true;
    predict_dropped();
}

void TrainView::predict_dropped() {
    dropped_probs_.clear();
    if (!dropped_ || !train_ || train_->lane.params.empty()) return;
    // One picture forward is a few million multiply-adds: the plain loop does it in milliseconds on
    // this thread, with an engine of its own (the worker's engines stay the worker's).
    try {
        std::unique_ptr<train::TrainEngine> engine = train::make_train_engine(train::kPlainLoop);
        engine->setup(model_, train_->lane.params, 1);
        std::vector<float> x(dropped_->pixels.size());
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = dropped_->pixels[i] * (1.0f / 255.0f);
        engine->forward(x.data(), 1);
        const std::vector<float> logits = engine->logits();
        dropped_probs_ = train::softmax(logits.data(), model_.classes);
    } catch (const std::exception& e) {
        host_.error = std::string("cannot classify the picture: ") + e.what();
    }
}

// [SECTION] predict

ImportedRaceLeaders imported_race_leaders(const core::ImportedTrain& race) {
    ImportedRaceLeaders out;
    for (const auto& l : race.race) {
        if (!l.ran || l.images_per_second <= 0 || l.engine == train::kPlainLoop) continue;
        const core::ImportedTrainLane*& best = train::is_cpu_engine(l.engine) ? out.cpu : out.gpu;
        if (!best || l.images_per_second > best->images_per_second) best = &l;
    }
    return out;
}

EpochAnswer answer_epoch_speedup(const RaceRunResult* race, const std::vector<std::string>& choices,
                                 const core::ImportedTrain* recorded) {
    EpochAnswer a;
    if (!race) {
        a.text = "nothing raced yet";
        return a;
    }
    // A race the class stopped answers nothing: its lanes' speeds come from however far each got,
    // and judging a pick against them would mark a sensible answer wrong (issue 41, item 5).
    if (std::any_of(race->lanes.begin(), race->lanes.end(), [](const train::LaneResult& l) { return l.stopped; })) {
        a.stopped = true;
        a.text = "The race was stopped before every engine finished, so it answers nothing yet: race again (R) to "
                 "see the answer.";
        return a;
    }
    const train::RaceSummary& s = race->summary;
    if (s.fastest_cpu < 0) {
        a.text = s.text;
        return a;
    }
    a.ok = true;
    const train::LaneResult& cpu = race->lanes[static_cast<std::size_t>(s.fastest_cpu)];
    const double cpu_epoch_s = 60000.0 / cpu.images_per_second();
    const std::string article = train::article_experiment_sentence();
    // The recording's race, judged as the race panel judges it.
    const ImportedRaceLeaders rec =
        recorded && !recorded->recorded_source.empty() ? imported_race_leaders(*recorded) : ImportedRaceLeaders{};
    const core::ImportedTrainLane *rec_cpu = rec.cpu, *rec_gpu = rec.gpu;
    if (s.fastest_gpu < 0 && rec_cpu && rec_gpu) {
        a.recorded = true;
        a.ratio = rec_gpu->images_per_second / rec_cpu->images_per_second;
        a.text = "No GPU engine ran here. " + recorded->recorded_source + " (not this computer): " + rec_gpu->engine +
                 " would finish an epoch of 60,000 pictures in " +
                 core::format_duration(static_cast<std::int64_t>(60000.0 / rec_gpu->images_per_second * 1e9)) + ", " +
                 rec_cpu->engine + " on that computer's CPU in " +
                 core::format_duration(static_cast<std::int64_t>(60000.0 / rec_cpu->images_per_second * 1e9)) + ": " +
                 core::format_ratio(a.ratio) + " faster there. Here " + cpu.engine + " would take " +
                 core::format_duration(static_cast<std::int64_t>(cpu_epoch_s * 1e9)) + ". " + article;
    } else if (s.fastest_gpu < 0) {
        a.ratio = train::ArticleFigures::speedup();
        a.text = "No GPU engine ran here, so this machine's answer is not measured. The fastest CPU engine, " +
                 cpu.engine + ", would take " + core::format_duration(static_cast<std::int64_t>(cpu_epoch_s * 1e9)) +
                 " for one epoch of 60,000 pictures. " + article;
    } else {
        a.measured = true;
        a.ratio = s.speedup;
        const train::LaneResult& gpu = race->lanes[static_cast<std::size_t>(s.fastest_gpu)];
        a.text = gpu.engine + " finishes an epoch of 60,000 pictures in " +
                 core::format_duration(static_cast<std::int64_t>(60000.0 / gpu.images_per_second() * 1e9)) + ", " +
                 cpu.engine + " in " + core::format_duration(static_cast<std::int64_t>(cpu_epoch_s * 1e9)) + ": " +
                 core::format_ratio(s.speedup) + " faster on this machine. " + article;
    }
    double best = 1e9;
    for (std::size_t k = 0; k < choices.size(); ++k) {
        const double f = choice_factor(choices[k]);
        if (f <= 0) continue;
        const double d = std::fabs(std::log(f) - std::log(std::max(a.ratio, 1e-3)));
        if (d < best) {
            best = d;
            a.best_choice = static_cast<int>(k);
        }
    }
    return a;
}

// [SECTION] export

std::string train_csv(const TrainRunResult* tr, const RaceRunResult* race, const BatchRunResult* batch,
                      const std::vector<std::string>& caption, const core::ImportedTrain* recorded) {
    std::string out;
    for (const auto& line : caption) out += "# " + line + "\n";
    out += "# section: train = the Train run per epoch, race = each engine per epoch for the same seconds, "
           "layers = time per image per layer, batch = time per image at one batch size\n";
    out += "section,engine,batch,epoch_or_layer,seconds,images,loss,train_accuracy,test_accuracy,images_per_s,"
           "forward_ns_per_image,backward_ns_per_image,ns_per_image,note\n";
    char buf[512];
    auto lane_rows = [&](const char* section, const train::LaneResult& l, std::int64_t b, bool simulated = false) {
        if (!l.ran) {
            out += std::string(section) + "," + l.engine + "," + std::to_string(b) + ",,,,,,,,,,,\"" + l.reason + "\"\n";
            return;
        }
        for (std::size_t e = 0; e < l.points.size(); ++e) {
            const train::CurvePoint& p = l.points[e];
            // A simulated lane has no speed: its images/s column stays empty and the note says why.
            char speed[32] = "";
            if (!simulated) std::snprintf(speed, sizeof speed, "%.1f", p.seconds > 0 ? p.images / p.seconds : 0.0);
            std::string note = e + 1 == l.points.size() ? l.reason : "";
            if (simulated) note = "simulated on the CPU: seconds are the simulator's, not a GPU speed" + (note.empty() ? "" : "; " + note);
            std::snprintf(buf, sizeof buf, "%s,%s,%lld,%zu,%.4f,%lld,%.5f,%.4f,%.4f,%s,,,,\"%s\"\n", section,
                          l.engine.c_str(), static_cast<long long>(b), e + 1, p.seconds,
                          static_cast<long long>(p.images), p.loss, p.train_accuracy, p.test_accuracy, speed,
                          note.c_str());
            out += buf;
        }
    };
    if (tr) lane_rows("train", tr->lane, tr->plan.batch, tr->simulated);
    if (race) {
        for (const auto& l : race->lanes) lane_rows("race", l, race->plan.batch);
        const train::ModelDesc model = train::make_model(train::kDefaultModelSpec, {1, 28, 28}, 10);
        for (const auto& l : race->lanes) {
            if (!l.ran || l.images <= 0 || l.layer_ns.size() != model.layers.size()) continue;
            for (std::size_t i = 0; i < l.layer_ns.size(); ++i) {
                std::snprintf(buf, sizeof buf, "layers,%s,%lld,%s,,%lld,,,,,%.1f,%.1f,,\n", l.engine.c_str(),
                              static_cast<long long>(race->plan.batch), model.layers[i].name.c_str(),
                              static_cast<long long>(l.images),
                              static_cast<double>(l.layer_ns[i].forward_ns) / static_cast<double>(l.images),
                              static_cast<double>(l.layer_ns[i].backward_ns) / static_cast<double>(l.images));
                out += buf;
            }
        }
    }
    if (batch) {
        for (const auto& c : batch->cells) {
            std::snprintf(buf, sizeof buf, "batch,%s,%lld,,%.4f,%lld,,,,%.1f,,,%.1f,\"%s\"\n", c.engine.c_str(),
                          static_cast<long long>(c.batch), c.ns * 1e-9, static_cast<long long>(c.images),
                          c.ns > 0 ? c.images * 1e9 / static_cast<double>(c.ns) : 0.0, c.ns_per_image(),
                          c.reason.c_str());
            out += buf;
        }
    }
    // The source column of every row written above: all measured here (or all on the computer an
    // imported result came from).
    std::string with_source = with_source_column(out, shown_result_source());
    // A recording's race lanes, one row each with its totals, as it wrote them.
    if (race && recorded && !recorded->recorded_source.empty())  // shown beside this machine's race only
        for (const core::ImportedTrainLane& l : recorded->race) {
            if (!l.ran) continue;
            std::snprintf(buf, sizeof buf, "race,%s,,,%.4f,%lld,,,%.4f,%.1f,,,,", l.engine.c_str(), l.seconds,
                          static_cast<long long>(l.images), l.test_accuracy, l.images_per_second);
            with_source += buf + core::csv_field(l.note) + "," + core::csv_field(recorded->recorded_source) + "\n";
        }
    return with_source;
}

namespace {

std::vector<std::string> train_caption(std::string_view title, const TrainPlan& plan) {
    std::vector<std::string> c = machine_caption_lines(title, static_cast<std::int64_t>(std::time(nullptr)));
    c.push_back("model: " + std::string(train::kDefaultModelSpec) + " on 28x28x1, " +
                core::format_count(train::make_model(train::kDefaultModelSpec, {1, 28, 28}, 10).parameter_count) +
                " parameters; SGD rate " + train::format_learning_rate(plan.learning_rate) +
                ", momentum 0.9, seed 1; data: Fashion-MNIST" +
                (plan.quick ? " (--quick: a few batches on a small subset)" : ""));
    return c;
}

}  // namespace

ExportResult TrainView::export_files(const ViewExport& in) {
    if (!data_ && data_error_.empty()) return {false, "nothing to export yet: load the data set first", {}};
    ExportWriter out(in.out_dir, in.lesson_id);
    if (!out.ok()) return out.failed();
    const std::vector<std::string> caption = train_caption(in.lesson_title, effective_plan());
    if (!out.text("-train.csv", train_csv(train_.get(), race_.get(), batch_.get(), caption, comparison())))
        return out.failed();
    // Two pictures: an offscreen panel is at most 1,400 pixels tall.
    const std::filesystem::path png = out.path("-train.png");
    std::string error;
    bool ok = render_panel_png(in.ui_scale, 1200, png.string(), error, [&](const Fonts& fonts, float) {
        draw_export_heading(fonts, in.lesson_title + ": the model and training");
        draw_caption_block(caption);
        const float w = ImGui::GetContentRegionAvail().x;
        if (!data_) {
            draw_data_missing();
            return;
        }
        draw_model_panel(w);
        ImGui::Separator();
        draw_train_panel(w);
    });
    if (!out.picture(png, ok, error)) return out.failed();
    if (train_) {
        const std::filesystem::path results_png = out.path("-results.png");
        ok = render_panel_png(in.ui_scale, 1200, results_png.string(), error, [&](const Fonts& fonts, float) {
            draw_export_heading(fonts, in.lesson_title + ": what it learnt");
            draw_caption_block(caption);
            draw_results_panel(ImGui::GetContentRegionAvail().x);
        });
        if (!out.picture(results_png, ok, error)) return out.failed();
    }
    if (race_ || batch_) {
        const std::filesystem::path race_png = out.path("-race.png");
        ok = render_panel_png(in.ui_scale, 1200, race_png.string(), error, [&](const Fonts& fonts, float) {
            draw_export_heading(fonts, in.lesson_title + ": the race, where the time goes, batch size");
            draw_caption_block(caption);
            const float w = ImGui::GetContentRegionAvail().x;
            if (race_) {
                draw_race_panel(w);
                ImGui::Separator();
                draw_layers_panel(w);
            }
            if (batch_) {
                ImGui::Separator();
                draw_batch_panel(w);
            }
        });
        if (!out.picture(race_png, ok, error)) return out.failed();
    }
    ExportResult result = out.finish(in.window_rgba, in.window_width, in.window_height);
    if (result.ok && comparison()) result.message += compare_export_note(*comparison(), "");
    return result;
}

std::string TrainView::export_description() const {
    return "Write <lesson>-train.png (the model and the training curves), <lesson>-results.png (the confusion "
           "matrix and predictions), <lesson>-race.png "
           "(the race, per-layer times, batch sizes), both with a caption naming this machine, <lesson>-train.csv "
           "(every measured point) and <lesson>-window.png.";
}

std::string TrainView::measurement_csv(const std::string& lesson_title) const {
    if (!train_ && !race_ && !batch_) return "";
    return train_csv(train_.get(), race_.get(), batch_.get(), train_caption(lesson_title, effective_plan()),
                     comparison());
}

const core::ImportedTrain* TrainView::comparison() const {
    if (other_) return other_.get();
    // The race's settings are the lesson's own (same model, data and seconds per engine): any
    // recorded race with a GPU lane that ran will do.
    return recorded_.get("race", [] {
        return recorded_match<core::ImportedTrain>("train", core::train_comparison, [](const core::ImportedTrain& t) {
            for (const auto& l : t.race)
                if (l.ran && !train::is_cpu_engine(l.engine)) return true;
            return false;
        });
    });
}

bool TrainView::load_comparison(const std::string& path, std::string& error) {
    std::unique_ptr<core::ImportedTrain> other;
    if (!load_other_machine(path, "train", core::train_comparison, host_, other, error)) return false;
    if (other->race.empty()) {
        error = path + " has no race (export the training lesson after its race step to compare)";
        host_.error = error;
        host_.info.clear();
        return false;
    }
    other_ = std::move(other);
    return true;
}

}  // namespace gpulab::app
