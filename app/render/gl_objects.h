// How many GL objects gpulab itself holds, by kind: created minus deleted, counted where the
// project calls glGen*/glCreate*/glDelete* (ImGui's renderer keeps its own few and is not counted).
// The classroom soak (scripts/soak.sh) samples these through the stats log (app/shell/frame_stats.h)
// to show that an hour of lessons, runs and exports leaks no texture, buffer or program.
#pragma once

#include <string>

namespace gpulab::app {

enum class GlKind { Texture, Buffer, VertexArray, Program, Shader, Framebuffer, Query, Count };

// n objects of `kind` made (positive) or deleted (negative). Called by the GL layer only.
void note_gl_objects(GlKind kind, int n);
// Live objects of one kind.
long gl_objects_alive(GlKind kind);
// "textures=3 buffers=1 vaos=1 programs=1 shaders=0 framebuffers=1 queries=12".
std::string gl_objects_summary();

}  // namespace gpulab::app
