#include "tests/engine/transformer/golden_case.h"

#include "engine/core/tensor_io.h"
#include "tests/support/test_paths.h"

#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <regex>

namespace tuneframe::test {
namespace {

struct Row {
    std::string dtype;
    std::vector<std::int64_t> shape;
};

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(' ');
    const auto last = text.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

// The table under "`relative`:" in MANIFEST.md: "| name | DTYPE | [shape] |" rows.
std::map<std::string, Row> manifest_table(const std::filesystem::path& golden,
                                          const std::string& relative) {
    std::ifstream manifest(golden / "MANIFEST.md");
    const std::string heading = "`" + relative + "`:";
    std::map<std::string, Row> rows;
    bool inside = false;
    for (std::string line; std::getline(manifest, line);) {
        if (!inside) {
            inside = trim(line) == heading;
            continue;
        }
        if (line.rfind("|", 0) != 0) {
            if (!rows.empty() || !trim(line).empty()) {
                break; // the table ended, or another paragraph began
            }
            continue;
        }
        std::vector<std::string> cells;
        std::size_t start = 1;
        for (std::size_t bar; (bar = line.find('|', start)) != std::string::npos; start = bar + 1) {
            cells.push_back(trim(line.substr(start, bar - start)));
        }
        if (cells.size() != 3 || cells[0] == "tensor" || cells[0].rfind("---", 0) == 0) {
            continue;
        }
        Row row{cells[1], {}};
        const std::regex number(R"(\d+)");
        for (auto it = std::sregex_iterator(cells[2].begin(), cells[2].end(), number);
             it != std::sregex_iterator(); ++it) {
            row.shape.push_back(std::stoll(it->str()));
        }
        rows[cells[0]] = row;
    }
    return rows;
}

} // namespace

void GoldenTest::SetUp() {
    golden_ = golden_dir();
    if (golden_.empty()) {
        if (running_in_ci()) {
            FAIL() << "the golden sets (../shared/golden) are missing; CI must have them";
        }
        GTEST_SKIP() << "no ../shared/golden here";
    }
}

void WanGoldenTest::SetUp() {
    golden_ = golden_wan_dir();
    if (golden_.empty()) {
        if (running_in_ci()) {
            FAIL() << "the Wan golden set (../shared/golden-wan) is missing; CI must have it";
        }
        GTEST_SKIP() << "no ../shared/golden-wan here";
    }
}

std::map<std::string, at::Tensor> read_golden(const std::filesystem::path& golden,
                                              const std::string& relative) {
    const auto rows = manifest_table(golden, relative);
    EXPECT_FALSE(rows.empty()) << "MANIFEST.md has no table for " << relative;
    auto tensors = core::read_tensors(golden / relative);
    for (const auto& [name, row] : rows) {
        auto it = tensors.find(name);
        if (it == tensors.end()) {
            ADD_FAILURE() << relative << ": missing " << name;
            continue;
        }
        EXPECT_EQ(core::dtype_name(core::from_scalar_type(it->second.scalar_type())), row.dtype)
            << relative << ": " << name;
        EXPECT_EQ(it->second.sizes().vec(), row.shape) << relative << ": " << name;
    }
    for (const auto& [name, tensor] : tensors) {
        EXPECT_TRUE(rows.count(name)) << relative << ": tensor " << name << " not in MANIFEST.md";
    }
    return tensors;
}

Difference compare(const at::Tensor& actual, const at::Tensor& expected) {
    EXPECT_EQ(actual.sizes(), expected.sizes());
    const at::Tensor a = actual.detach().to(torch::kCPU, torch::kFloat64);
    const at::Tensor e = expected.detach().to(torch::kCPU, torch::kFloat64);
    return {(a - e).abs().max().item<double>(), e.abs().max().item<double>()};
}

double fp32_bound(const Difference& difference) {
    return 1e-4 + 1e-4 * difference.max_ref;
}

double bf16_bound(const Difference& difference) {
    return 2e-2 * difference.max_ref;
}

void expect_within(const std::string& label, const Difference& difference, double bound) {
    std::printf("[ error    ] %-48s max|diff| %.3e  max|ref| %.3f  bound %.3e\n", label.c_str(),
                difference.max_abs, difference.max_ref, bound);
    EXPECT_LE(difference.max_abs, bound) << label;
}

} // namespace tuneframe::test
