// A tiny dependency-free PNG writer and plot canvas for `wgslvk bench --png` and the trainer's loss
// plot (`wgslvk train --png`): RGB8 image, the
// "Up" row filter and a fixed-Huffman deflate stream of literals and distance-1 runs, CRC32 and
// Adler-32, Bresenham lines and a 5x7 bitmap font. Robust over pretty: no external library, no
// fonts on disk.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "wgslvk/output_file.hpp"

namespace wgslvk {

struct Rgb {
  uint8_t r, g, b;
};

class Canvas {
 public:
  Canvas(int w, int h, Rgb bg = {255, 255, 255}) : w_(w), h_(h), px_(size_t(w) * h * 3) {
    for (int i = 0; i < w * h; ++i) {
      px_[i * 3] = bg.r;
      px_[i * 3 + 1] = bg.g;
      px_[i * 3 + 2] = bg.b;
    }
  }
  int width() const { return w_; }
  int height() const { return h_; }

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    uint8_t* p = &px_[(size_t(y) * w_ + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void rect(int x0, int y0, int x1, int y1, Rgb c) {  // filled, inclusive
    for (int y = std::min(y0, y1); y <= std::max(y0, y1); ++y)
      for (int x = std::min(x0, x1); x <= std::max(x0, x1); ++x) set(x, y, c);
  }
  // Bresenham; `thick` draws a (2*thick+1)-pixel square pen; `dash` > 0 skips every other run.
  // Clipped to the canvas first (Liang-Barsky), so far-away endpoints cost nothing: a line to
  // y = -2e9 once looped for billions of steps (and |x1 - x0| could overflow).
  void line(int x0, int y0, int x1, int y1, Rgb c, int thick = 0, int dash = 0) {
    if (!clip(x0, y0, x1, y1, thick)) return;
    int dx = std::abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -std::abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy, step = 0;
    for (;;) {
      if (dash <= 0 || (step / dash) % 2 == 0)
        for (int oy = -thick; oy <= thick; ++oy)
          for (int ox = -thick; ox <= thick; ++ox) set(x0 + ox, y0 + oy, c);
      ++step;
      if (x0 == x1 && y0 == y1) break;
      int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  // 5x7 glyphs, scaled by `scale`; unknown characters draw as a box.
  void text(int x, int y, std::string_view s, Rgb c, int scale = 1) {
    for (char ch : s) {
      const auto& g = glyph(ch);
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if (g[row] & (0x10 >> col))
            rect(x + col * scale, y + row * scale, x + col * scale + scale - 1,
                 y + row * scale + scale - 1, c);
      x += 6 * scale;
    }
  }
  static int text_width(std::string_view s, int scale = 1) { return int(s.size()) * 6 * scale; }

  bool write_png(const std::string& path) const {
    // Filter "Up" on every row (a plot is mostly rows equal to the one above: zero bytes), then
    // deflate with the fixed Huffman code and runs coded as matches at distance 1.
    std::vector<uint8_t> raw;
    raw.reserve(size_t(h_) * (w_ * 3 + 1));
    const size_t stride = size_t(w_) * 3;
    for (int y = 0; y < h_; ++y) {
      raw.push_back(2);
      for (size_t x = 0; x < stride; ++x) {
        uint8_t cur = px_[size_t(y) * stride + x], up = y ? px_[size_t(y - 1) * stride + x] : 0;
        raw.push_back(uint8_t(cur - up));
      }
    }
    std::vector<uint8_t> z = {0x78, 0x01};
    deflate_fixed(raw, z);
    uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
    for (uint8_t v : raw) {
      a = (a + v) % 65521;
      b = (b + a) % 65521;
    }
    put32(z, (b << 16) | a);

    std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<uint8_t> ihdr;
    put32(ihdr, uint32_t(w_));
    put32(ihdr, uint32_t(h_));
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8-bit, RGB, deflate, no filter, no interlace
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", {});
    try {
      write_output_file_atomic(path, out);  // never through a planted symlink
    } catch (const std::runtime_error&) { return false; }
    return true;
  }

 private:
  // Clips the segment to the canvas grown by `margin` pixels; false when nothing is left.
  bool clip(int& x0, int& y0, int& x1, int& y1, int margin) const {
    const double lo_x = -margin, hi_x = w_ - 1.0 + margin, lo_y = -margin, hi_y = h_ - 1.0 + margin;
    const double ax = x0, ay = y0, dx = double(x1) - ax, dy = double(y1) - ay;
    double t0 = 0, t1 = 1;
    auto edge = [&](double p, double q) {  // keep the part where p * t <= q
      if (p == 0) return q >= 0;
      const double r = q / p;
      if (p < 0) {
        if (r > t1) return false;
        t0 = std::max(t0, r);
      } else {
        if (r < t0) return false;
        t1 = std::min(t1, r);
      }
      return true;
    };
    if (!edge(-dx, ax - lo_x) || !edge(dx, hi_x - ax) || !edge(-dy, ay - lo_y) ||
        !edge(dy, hi_y - ay))
      return false;
    x0 = int(std::lround(ax + t0 * dx));
    y0 = int(std::lround(ay + t0 * dy));
    x1 = int(std::lround(ax + t1 * dx));
    y1 = int(std::lround(ay + t1 * dy));
    return true;
  }
  // One final deflate block, fixed Huffman codes (RFC 1951 3.2.6); repeated bytes become
  // <literal, match(length, distance 1)...>.
  static void deflate_fixed(const std::vector<uint8_t>& in, std::vector<uint8_t>& out) {
    uint32_t acc = 0;
    int nbits = 0;
    auto bits = [&](uint32_t v, int n) {  // LSB first
      acc |= v << nbits;
      nbits += n;
      while (nbits >= 8) {
        out.push_back(uint8_t(acc & 0xff));
        acc >>= 8;
        nbits -= 8;
      }
    };
    auto huff = [&](uint32_t code, int n) {  // Huffman codes go MSB first
      uint32_t r = 0;
      for (int i = 0; i < n; ++i) r |= ((code >> i) & 1u) << (n - 1 - i);
      bits(r, n);
    };
    auto sym = [&](int v) {
      if (v < 144)
        huff(0x30 + v, 8);
      else if (v < 256)
        huff(0x190 + (v - 144), 9);
      else if (v < 280)
        huff(v - 256, 7);
      else
        huff(0xc0 + (v - 280), 8);
    };
    static const int base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    bits(1, 1);  // BFINAL
    bits(1, 2);  // BTYPE = 01, fixed Huffman
    size_t i = 0;
    while (i < in.size()) {
      sym(in[i]);
      size_t run = 0;
      while (i + 1 + run < in.size() && in[i + 1 + run] == in[i]) ++run;
      size_t j = i + 1, left = run;
      while (left >= 3) {
        int len = int(std::min<size_t>(left, 258));
        if (left - size_t(len) > 0 && left - size_t(len) < 3) len -= 3;  // keep the tail >= 3
        int k = 28;
        while (base[k] > len) --k;
        sym(257 + k);
        if (extra[k]) bits(uint32_t(len - base[k]), extra[k]);
        huff(0, 5);  // distance code 0: distance 1
        left -= size_t(len);
        j += size_t(len);
      }
      for (; left > 0; --left, ++j) sym(in[j - 0]);
      i = j;
    }
    sym(256);  // end of block
    if (nbits) out.push_back(uint8_t(acc & 0xff));
  }
  static void put32(std::vector<uint8_t>& v, uint32_t x) {
    v.push_back(x >> 24);
    v.push_back((x >> 16) & 0xff);
    v.push_back((x >> 8) & 0xff);
    v.push_back(x & 0xff);
  }
  static uint32_t crc32(const uint8_t* p, size_t n, uint32_t c = 0xffffffffu) {
    static const auto table = [] {
      std::array<uint32_t, 256> t{};
      for (uint32_t i = 0; i < 256; ++i) {
        uint32_t k = i;
        for (int j = 0; j < 8; ++j) k = (k & 1) ? 0xedb88320u ^ (k >> 1) : k >> 1;
        t[i] = k;
      }
      return t;
    }();
    for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c;
  }
  static void chunk(std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& data) {
    put32(out, uint32_t(data.size()));
    size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), data.begin(), data.end());
    put32(out, crc32(out.data() + start, out.size() - start) ^ 0xffffffffu);
  }
  // Rows top to bottom, bit 4 = leftmost column.
  static const std::array<uint8_t, 7>& glyph(char ch) {
    static const std::array<uint8_t, 7> box = {0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f};
    static const std::array<uint8_t, 7> space = {0, 0, 0, 0, 0, 0, 0};
    static const std::array<std::array<uint8_t, 7>, 10> digits = {{
        {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e},
        {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e},
        {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f},
        {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e},
        {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02},
        {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e},
        {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e},
        {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
        {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e},
        {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c},
    }};
    static const std::array<std::array<uint8_t, 7>, 26> letters = {{
        {0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}, {0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e},
        {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e}, {0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c},
        {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f}, {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10},
        {0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f}, {0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11},
        {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}, {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c},
        {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f},
        {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11}, {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},
        {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}, {0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10},
        {0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d}, {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11},
        {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e}, {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},
        {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}, {0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04},
        {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a}, {0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11},
        {0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04}, {0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f},
    }};
    static const std::array<uint8_t, 7> dot = {0, 0, 0, 0, 0, 0x0c, 0x0c};
    static const std::array<uint8_t, 7> slash = {0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10};
    static const std::array<uint8_t, 7> minus = {0, 0, 0, 0x1f, 0, 0, 0};
    static const std::array<uint8_t, 7> under = {0, 0, 0, 0, 0, 0, 0x1f};
    static const std::array<uint8_t, 7> percent = {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03};
    static const std::array<uint8_t, 7> colon = {0, 0x0c, 0x0c, 0, 0x0c, 0x0c, 0};
    static const std::array<uint8_t, 7> lpar = {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02};
    static const std::array<uint8_t, 7> rpar = {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08};
    static const std::array<uint8_t, 7> eq = {0, 0, 0x1f, 0, 0x1f, 0, 0};
    static const std::array<uint8_t, 7> comma = {0, 0, 0, 0, 0x0c, 0x04, 0x08};
    static const std::array<uint8_t, 7> plus = {0, 0x04, 0x04, 0x1f, 0x04, 0x04, 0};
    static const std::array<uint8_t, 7> lbr = {0x0e, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0e};
    static const std::array<uint8_t, 7> rbr = {0x0e, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0e};
    if (ch >= '0' && ch <= '9') return digits[ch - '0'];
    if (ch >= 'a' && ch <= 'z') ch = char(ch - 'a' + 'A');
    if (ch >= 'A' && ch <= 'Z') return letters[ch - 'A'];
    switch (ch) {
      case ' ':
        return space;
      case '.':
        return dot;
      case '/':
        return slash;
      case '-':
        return minus;
      case '_':
        return under;
      case '%':
        return percent;
      case ':':
        return colon;
      case '(':
        return lpar;
      case ')':
        return rpar;
      case '=':
        return eq;
      case ',':
        return comma;
      case '+':
        return plus;
      case '[':
        return lbr;
      case ']':
        return rbr;
      default:
        return box;
    }
  }

  int w_, h_;
  std::vector<uint8_t> px_;
};

// One panel of a log-x plot: bandwidth (GB/s, linear y from 0) against bytes moved.
struct Series {
  std::string name;
  Rgb color;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // (x, y), x > 0
};

inline void draw_panel(Canvas& c, int x0, int y0, int w, int h, const std::string& title,
                       const std::string& xlabel, const std::vector<Series>& series) {
  const Rgb black{0, 0, 0}, grid{220, 220, 220};
  int L = x0 + 52, R = x0 + w - 10, T = y0 + 24, B = y0 + h - 30;
  double xmin = 1e300, xmax = 0, ymax = 0;
  for (const auto& s : series)
    for (auto [x, y] : s.points) {
      if (!(x > 0) || !std::isfinite(y)) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
    }
  c.text(x0 + 4, y0 + 4, title, black, 2);
  c.line(L, T, L, B, black);
  c.line(L, B, R, B, black);
  if (xmax <= 0) {
    c.text(L + 10, (T + B) / 2, "NO DATA", black, 2);
    return;
  }
  if (xmax <= xmin) {
    xmin /= 2;
    xmax *= 2;
  }
  if (ymax <= 0) ymax = 1;
  // y ticks: a "nice" step with 4-6 lines
  double raw = ymax / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  ymax = std::ceil(ymax * 1.05 / step) * step;
  auto px = [&](double x) {
    return L + int((std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) *
                   (R - L));
  };
  auto py = [&](double y) { return B - int(y / ymax * (B - T)); };
  for (double y = step; y <= ymax + 1e-9; y += step) {
    c.line(L + 1, py(y), R, py(y), grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", y);
    c.text(L - 4 - Canvas::text_width(buf), py(y) - 3, buf, black);
  }
  for (double d = std::pow(10.0, std::ceil(std::log10(xmin))); d <= xmax * 1.0001; d *= 10) {
    c.line(px(d), T, px(d), B - 1, grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "1E%d", int(std::lround(std::log10(d))));
    if (px(d) - L > 40 && R - px(d) > 40)
      c.text(px(d) - Canvas::text_width(buf) / 2, B + 5, buf, black);
  }
  for (double e : {xmin, xmax}) {  // the ends, always labelled
    char buf[32];
    int ex = int(std::floor(std::log10(e)));
    std::snprintf(buf, sizeof buf, "%.1fE%d", e / std::pow(10.0, ex), ex);
    int x = e == xmin ? L : R - Canvas::text_width(buf);
    c.text(x, B + 5, buf, black);
  }
  c.text(R - Canvas::text_width(xlabel), B + 16, xlabel, black);
  int ly = T + 2;
  for (const auto& s : series) {
    for (size_t i = 0; i < s.points.size(); ++i) {
      auto [x, y] = s.points[i];
      if (!(x > 0) || !std::isfinite(y)) continue;
      c.rect(px(x) - 2, py(y) - 2, px(x) + 2, py(y) + 2, s.color);
      if (i + 1 < s.points.size() && s.points[i + 1].first > 0 &&
          std::isfinite(s.points[i + 1].second))
        c.line(px(x), py(y), px(s.points[i + 1].first), py(s.points[i + 1].second), s.color, 1,
               s.dashed ? 6 : 0);
    }
    c.line(L + 8, ly + 3, L + 28, ly + 3, s.color, 1, s.dashed ? 4 : 0);
    c.text(L + 32, ly, s.name, black);
    ly += 11;
  }
}

}  // namespace wgslvk
