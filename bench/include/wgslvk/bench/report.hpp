// The bench's outputs: the table on stdout, the JSON rows, the PNG of bandwidth against bytes.
#pragma once

#include <string>
#include <vector>

#include "wgslvk/bench/bench.hpp"

namespace wgslvk::bench {

void print_header();
void print_row(const Row& r);
json row_json(const Row& r);
// One panel per plotted kernel: its GB/s and the copy roofline's against bytes moved.
void write_png(const std::string& device_name, const std::vector<Row>& rows,
               const std::string& path);

}  // namespace wgslvk::bench
