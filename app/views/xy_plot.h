// A small x-y line plot on ImDrawList for the lessons' curves (the training lesson's loss and
// accuracy against seconds, test accuracy in the race, time per image against batch size; the
// tensor-core lesson's loss of three precisions): axes with a few labelled ticks, linear or log
// scales, one coloured line per series with optional dots, a legend. The timing module
// (views/timing_plot.h) draws sample histories and bars, not x-y curves. Here, beside it, since two
// lessons draw with it (it was the training lesson's own until the tensor-core lesson needed it).
// Checked in the exported PNGs.
#pragma once

#include <imgui.h>

#include <string>
#include <utility>
#include <vector>

#include "widgets/presenter_palette.h"

namespace gpulab::app {

struct PlotSeries {
    std::string name;
    ImU32 colour = 0;
    std::vector<ImVec2> points;  // (x, y) in data units
    bool dots = false;
    float thickness = 1.8f;
    // A backend's series carries its shape (backend_marker): as the dots, on a line without dots a
    // few times along it, and in the legend, so lines that cross stay apart without colour.
    // Marker::Circle with no backend: plain round dots, as before.
    Marker marker = Marker::Circle;
    bool backend = false;
};

// A backend's series in its colour with its marker.
PlotSeries backend_series(const std::string& name, const std::string& backend, bool dots, float thickness = 1.8f);

struct XYPlot {
    // A constructor rather than aggregate initialisation, which leaves the later members to their
    // defaults but warns (-Wmissing-field-initializers) about each one.
    XYPlot(std::string title_in, std::string x_label_in, std::string y_label_in)
        : title(std::move(title_in)), x_label(std::move(x_label_in)), y_label(std::move(y_label_in)) {}
    std::string title, x_label, y_label;
    bool log_x = false, log_y = false;
    // Data ranges; min == max: taken from the points.
    float x_min = 0, x_max = 0, y_min = 0, y_max = 0;
    bool y_percent = false;  // tick labels as 0..100 %
    bool legend_bottom = false;  // legend in the bottom right corner (rising curves leave it empty)
    std::vector<PlotSeries> series;
};

// Draws the plot in a box `size` at the cursor and advances it.
void draw_xy_plot(const XYPlot& plot, ImVec2 size);

}  // namespace gpulab::app
