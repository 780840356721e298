// The embedding family's sweep cases (cases.cpp): the bench times these at its GPT shapes
// (bench.cpp, through wgslvk::bench::time_case), checked with the goldens' references and bounds.
// The table and the gradients are generated (golden/README.md "generate": fast to make for a
// 131072 x 4096 table, a few hundred bytes in a `bench --dump` folder); the reference computes,
// and the case checks, only the first `checked_rows` rows of the output (lookup: output rows;
// backward: table rows, which the first tokens are steered into so that they receive adds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wgslvk/validate/case.hpp"

namespace wgslvk::embedding {

// The sweep's tokens: hashed ids in [0, vocab) (the bench's ids since its first version, so its
// byte counts, which count distinct rows, are unchanged), renumbered so that the first distinct
// ids (up to 8) are rows 0, 1, ...: the checked first rows receive adds. No out-of-vocabulary ids
// (the goldens have them).
std::vector<uint32_t> sweep_tokens(uint32_t seq, uint32_t vocab);

// `kernel`: "embedding/embed_lookup", "embed_lookup_w16", "embed_lookup_rows",
// "embed_lookup_w16_rows", "embed_backward", "embed_backward_atomic_float",
// "embed_backward_deterministic" or "embed_backward_rows" (with the family prefix), at seq x d
// over a vocab-row table; the row-wise kernels with the host's launch (LookupPath::native,
// BackwardVariant::DeterministicRows). Throws std::invalid_argument for another name, an empty
// shape, or d % 4 != 0 for a row-wise kernel.
validate::Case embedding_sweep_case(const std::string& kernel, uint32_t seq, uint32_t d,
                                    uint32_t vocab, uint32_t checked_rows);

}  // namespace wgslvk::embedding
