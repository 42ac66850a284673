// Full-screen pass for the tensor colormap (and any other "draw this texture over the whole
// target" pass). No vertex buffer: one triangle big enough to cover the viewport is made from
// gl_VertexID, so the caller binds an empty VAO and draws 3 vertices. One triangle rather than
// two avoids the quad's diagonal, where the 2x2 pixel blocks the GPU shades together would be
// run once for each triangle.
//
//   (0,2) +
//         |  .
//         +-----+ .          the viewport is the unit square in the lower left;
//         |     |   .        the triangle (0,0) (2,0) (0,2) covers it, and the parts
//         |     |     .      outside are clipped before any pixel is shaded
//   (0,0) +-----+-------+ (2,0)
//
// Verified by tests/test_gl_render.cpp (every tensor element reads back with its colour).
#version 330 core

out vec2 v_uv;  // 0..1 across the viewport, (0,0) at texture row 0

void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));  // (0,0) (2,0) (0,2)
    v_uv = corner;
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
