// Shared by the 04_elementwise.wgsl GELU ports: gelu_value and gelu_grad, line by line.
#ifndef WGSLVK_GELU_COMMON
#define WGSLVK_GELU_COMMON

const float GELU_K = 0.7978845608028654;  // sqrt(2 / pi)
const float GELU_C = 0.044715;

vec4 gelu_value(vec4 x) {
    vec4 u = GELU_K * (x + GELU_C * x * x * x);
    vec4 e = exp(min(-2.0 * u, vec4(80.0)));
    return x / (1.0 + e);
}

vec4 gelu_grad(vec4 x) {
    vec4 u = GELU_K * (x + GELU_C * x * x * x);
    vec4 a = abs(u);
    vec4 e = exp(-2.0 * min(a, vec4(40.0)));  // in [exp(-80), 1]
    vec4 r = 1.0 / (1.0 + e);
    vec4 s = mix(e * r, r, greaterThanEqual(u, vec4(0.0)));  // sigmoid(2u); WGSL select
    vec4 q = e * r * r;                                       // s (1 - s)
    vec4 du = 2.0 * GELU_K * (1.0 + 3.0 * GELU_C * x * x);
    vec4 g = s + x * du * q;
    vec4 far = mix(vec4(0.0), vec4(1.0), greaterThan(u, vec4(0.0)));
    return mix(g, far, greaterThan(a, vec4(40.0)));
}

#endif
