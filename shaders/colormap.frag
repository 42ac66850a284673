// Turns one float per pixel (a GL_R32F texture holding a feature map, activation or weight
// tensor) into a colour with a diverging map:
//
//   lo ........ 0 ........ hi
//   dark blue   near white   dark red (default palette) or orange (colour-blind palette)
//
// Why diverging: what matters in an activation is first its sign (did ReLU zero it, is the
// pre-activation negative, is a weight pulling up or down) and then its size. A diverging map
// puts 0 at the lightest colour and makes distance from 0 darker on both sides, so the eye reads
// sign from hue and size from lightness; a rainbow map would invent edges where there are none.
//
// 0 is always the middle stop when lo < 0 < hi, even for an asymmetric range (each side is scaled
// on its own). When the whole range has one sign it is spread linearly from lo to hi.
// NaN is drawn magenta (1, 0, 1): a colour that occurs on neither ramp, so a single NaN in a
// feature map stands out. +Inf and -Inf clamp to the ends of the ramp.
//
// The ramp is linear interpolation between five stops that the caller passes in u_stops: the
// colours live in app/render/diverging_ramp.h, one place for this shader and the cells the views
// draw on the CPU, and the View menu's palette picks which ramp (tensor_texture.cpp).
// Verified by tests/gl/test_gl_render.cpp: -1 reads back blue, 0 near white, +1 red (orange on the
// colour-blind ramp), NaN magenta.
#version 330 core

uniform sampler2D u_values;  // GL_R32F, same size as the target: one texel per pixel
uniform float u_lo;
uniform float u_hi;

in vec2 v_uv;
out vec4 frag_color;

uniform vec3 u_stops[5];  // lo end, half-way, 0, half-way, hi end

const vec3 kNanColor = vec3(1.0, 0.0, 1.0);

// Position of v on the ramp, 0..1, with 0 in the middle whenever the range straddles it.
float ramp_position(float v) {
    if (u_hi <= u_lo) return 0.5;
    if (u_lo < 0.0 && u_hi > 0.0) {
        return v < 0.0 ? 0.5 - 0.5 * clamp(v / u_lo, 0.0, 1.0) : 0.5 + 0.5 * clamp(v / u_hi, 0.0, 1.0);
    }
    return clamp((v - u_lo) / (u_hi - u_lo), 0.0, 1.0);
}

vec3 ramp(float t) {
    float x = t * 4.0;
    int i = int(min(floor(x), 3.0));
    return mix(u_stops[i], u_stops[i + 1], x - float(i));
}

void main() {
    // texelFetch, not texture(): the target has the texture's size, so each pixel shows exactly
    // one element and no filtering can blend a NaN or a sign change into its neighbours.
    float v = texelFetch(u_values, ivec2(gl_FragCoord.xy), 0).r;
    if (isnan(v)) {
        frag_color = vec4(kNanColor, 1.0);
        return;
    }
    frag_color = vec4(ramp(ramp_position(v)), 1.0);
}
