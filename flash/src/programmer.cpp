// Verified reads, write planning and execution, the write journal.
#include "flash/programmer.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "base/format.hpp"

namespace flash {
namespace {

constexpr int kReads = 3;

pdt::Error write_error(const std::string& object, const std::string& hint, int code) {
    return pdt::make_error("check write", object, code, hint);
}

// A write the flash cannot take as asked (an empty image, a range off the sector grid).
pdt::Error write_usage_error(const std::string& object, const std::string& hint) {
    return pdt::usage_error("check write", object, hint);
}

std::string range_text(uint64_t address, uint64_t length) {
    return pdt::hex(address) + ".." + pdt::hex(address + length - 1);
}

}  // namespace

std::optional<uint64_t> first_difference(uint64_t address, std::span<const uint8_t> data,
                                         std::span<const uint8_t> expected) {
    const size_t n = std::min(data.size(), expected.size());
    const auto mismatch = std::mismatch(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n), expected.begin());
    if (mismatch.first != data.begin() + static_cast<std::ptrdiff_t>(n))
        return address + static_cast<uint64_t>(mismatch.first - data.begin());
    if (data.size() != expected.size())
        return address + n;
    return std::nullopt;
}

pdt::Result<std::vector<uint8_t>> read_verified(SpiNor& flash, uint64_t address, size_t length) {
    std::vector<uint8_t> first = PDT_TRY(flash.read(address, length));
    for (int pass = 2; pass <= kReads; ++pass) {
        const std::vector<uint8_t> again = PDT_TRY(flash.read(address, length));
        if (auto at = first_difference(address, again, first))
            return pdt::make_error("read flash", range_text(address, length), EIO,
                                   pdt::format("read %d differs from read 1 first at %s (0x%02x, then 0x%02x): "
                                               "the flash does not read back the same twice",
                                               pass, pdt::hex(*at).c_str(), first[*at - address], again[*at - address]));
    }
    return first;
}

pdt::Result<void> check_write_range(SpiNor& flash, uint64_t address, uint64_t length, const WriteRules& rules) {
    const uint32_t sector = flash.sector_erase().size;
    if (length == 0)
        return write_usage_error("image", "the image is empty");
    if (address >= flash.size() || length > flash.size() - address)
        return write_error(range_text(address, length),
                           pdt::format("%llu bytes at %s do not fit the flash's %llu bytes: the image is larger than "
                                       "the flash",
                                       static_cast<unsigned long long>(length), pdt::hex(address).c_str(),
                                       static_cast<unsigned long long>(flash.size())),
                           EFBIG);
    if (address % sector != 0)
        return write_usage_error(pdt::hex(address),
                                 pdt::format("the range is not sector aligned (erase sectors are %u bytes)", sector));
    if (address < rules.golden_end && !rules.overwrite_golden)
        return write_error(range_text(address, length),
                           "the range overlaps the golden image " + range_text(0, rules.golden_end), EPERM);
    const Protection protection = PDT_TRY(flash.protection());
    const uint64_t padded = (length + sector - 1) / sector * sector;
    if (protection.protects(address, padded))
        return write_error(range_text(address, padded),
                           "a protected sector: the block-protect bits protect " + protection.describe(), EACCES);
    return {};
}

std::vector<uint8_t> padded_image(std::span<const uint8_t> image, uint32_t sector_size) {
    std::vector<uint8_t> padded(image.begin(), image.end());
    padded.resize((image.size() + sector_size - 1) / sector_size * sector_size, 0xff);
    return padded;
}

pdt::Result<Plan> plan_write(SpiNor& flash, uint64_t address, std::span<const uint8_t> image) {
    Plan plan;
    plan.address = address;
    plan.sector_size = flash.sector_erase().size;
    const std::vector<uint8_t> padded = padded_image(image, plan.sector_size);
    plan.length = padded.size();
    const std::vector<uint8_t> current = PDT_TRY(read_verified(flash, address, padded.size()));
    for (uint64_t at = 0; at < padded.size(); at += plan.sector_size) {
        const auto begin = static_cast<std::ptrdiff_t>(at), end = static_cast<std::ptrdiff_t>(at + plan.sector_size);
        if (std::equal(current.begin() + begin, current.begin() + end, padded.begin() + begin))
            ++plan.unchanged;
        else
            plan.to_write.push_back(address + at);
    }
    return plan;
}

pdt::Result<WriteResult> execute_plan(SpiNor& flash, const Plan& plan, std::span<const uint8_t> padded,
                                      const std::function<bool()>& stop) {
    WriteResult result;
    result.skipped = plan.unchanged;
    const EraseType erase = flash.sector_erase();
    const uint32_t page = flash.sfdp().page_size;
    for (uint64_t sector : plan.to_write) {
        if (stop && stop())
            return pdt::make_error("write flash", pdt::hex(sector), ECANCELED,
                                   pdt::format("interrupted before this sector: %zu of %zu sectors written",
                                               result.written, plan.to_write.size()));
        const std::span<const uint8_t> want = padded.subspan(sector - plan.address, plan.sector_size);
        PDT_CHECK(flash.erase(sector, erase));
        for (uint32_t at = 0; at < plan.sector_size; at += page) {
            const std::span<const uint8_t> bytes = want.subspan(at, page);
            if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0xff; }))
                continue;  // erased already
            PDT_CHECK(flash.program_page(sector + at, bytes));
        }
        const std::vector<uint8_t> got = PDT_TRY(read_verified(flash, sector, plan.sector_size));
        if (auto bad = first_difference(sector, got, want))
            return pdt::make_error("verify sector", pdt::hex(sector), EIO,
                                   pdt::format("after erase and program the flash differs from the image first at %s "
                                               "(reads 0x%02x, image 0x%02x): the program failed",
                                               pdt::hex(*bad).c_str(), got[*bad - sector], want[*bad - sector]));
        ++result.written;
        result.verified_bytes += plan.sector_size;
    }
    return result;
}

pdt::Result<void> write_journal(const std::filesystem::path& path, const Journal& journal) {
    std::error_code ec;
    if (path.has_parent_path())
        std::filesystem::create_directories(path.parent_path(), ec);
    const std::filesystem::path temporary = path.string() + ".new";
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << "quad_spi_flasher journal 1\ndevice " << journal.device << "\nimage " << journal.image << "\naddress "
            << pdt::hex(journal.address) << "\nlength " << pdt::hex(journal.length) << "\n";
        out.flush();
        if (!out)
            return pdt::make_error("write journal", temporary.string(), EIO, "cannot record the write in progress");
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec)
        return pdt::make_error("write journal", path.string(), ec.value());
    return {};
}

pdt::Result<std::optional<Journal>> read_journal(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in)
        return std::optional<Journal>();
    Journal journal;
    std::string line, key;
    bool header = false, address = false, length = false;
    while (std::getline(in, line)) {
        if (line == "quad_spi_flasher journal 1") {
            header = true;
            continue;
        }
        const size_t space = line.find(' ');
        key = line.substr(0, space);
        const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
        if (key == "device")
            journal.device = value;
        else if (key == "image")
            journal.image = value;
        else if (key == "address")
            address = true, journal.address = std::strtoull(value.c_str(), nullptr, 0);
        else if (key == "length")
            length = true, journal.length = std::strtoull(value.c_str(), nullptr, 0);
    }
    if (!header || !address || !length || journal.image.empty())
        return pdt::make_error("read journal", path.string(), EINVAL,
                               "not a quad_spi_flasher journal (remove it once the flash is checked)");
    return std::optional<Journal>(journal);
}

pdt::Result<void> remove_journal(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (ec)
        return pdt::make_error("remove journal", path.string(), ec.value());
    return {};
}

}  // namespace flash
