#include "flasher.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>

#include "base/format.hpp"
#include "base/numbers.hpp"
#include "bitstream/bitstream.hpp"
#include "bitstream/parts.hpp"

namespace flasher {
namespace {

using pdt::hex;

// Text lines go to stdout unless --json, where one document is printed at the end.
std::ostream& text(const Options& options) {
    static std::ostream discard(nullptr);
    return options.json ? discard : std::cout;
}

int fail(Report& report, const std::string& message) {
    std::cerr << "Error: " << message << "\n";
    report.error = message;
    report.verdict = "FAIL";
    return 1;
}

std::string default_journal(const Target& target) {
    const char* state = std::getenv("XDG_STATE_HOME");
    const char* home = std::getenv("HOME");
    std::filesystem::path dir = state && *state ? std::filesystem::path(state)
                                : home         ? std::filesystem::path(home) / ".local/state"
                                               : std::filesystem::path("/tmp");
    return (dir / "pcie-dma-toolkit" / ("quad_spi_flasher-" + target.design + "-" + target.address + ".journal")).string();
}

// What the journal records of the image: its absolute path (the next run may name it from
// another directory), or this for an erase.
constexpr const char* kEraseImage = "(erase)";
std::string journal_image(const std::string& file) {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    return ec ? file : absolute.lexically_normal().string();
}

pdt::Result<std::vector<uint8_t>> load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return pdt::errno_error("open image", path);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The design's part in the bitstream library's table (UG470 Table 1-1, UG570 Table 1-4).
std::optional<bitstream::Part> design_part(const std::string& name) {
    for (const bitstream::Part& part : bitstream::known_parts()) {
        std::string lower = part.name;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower == name)
            return part;
    }
    return std::nullopt;
}

// The image's IDCODE must be the design's part's, revision bits 31:28 aside, as the
// configuration logic's device ID check compares them (UG470, UG570 "Device ID Check").
std::optional<std::string> part_mismatch(const std::vector<uint8_t>& image, const Target& target) {
    const std::string unchecked = " (--any_part to write it unchecked)";
    const auto want = design_part(target.data->fpga_part);
    if (!want)
        return "design " + target.design + " names no known FPGA part (fpga_part \"" + target.data->fpga_part +
               "\"): cannot check the image's IDCODE" + unchecked;
    auto parsed = bitstream::parse(image);
    if (!parsed)
        return "the image is not a bitstream: " + parsed.error().message() + unchecked;
    const auto got = parsed->configuration.idcode;
    if (!got)
        return "the image configures no IDCODE: not a bitstream for " + std::string(want->name) + unchecked;
    if ((*got & ~bitstream::kIdcodeRevisionMask) != (want->idcode & ~bitstream::kIdcodeRevisionMask))
        return "wrong part: the image's IDCODE is " + hex(*got) + " (" + bitstream::part_name(*got) + "), design " +
               target.design + " is a " + want->name + " (IDCODE " + hex(want->idcode) + ")";
    return std::nullopt;
}

void report_plan(const flash::Plan& plan, const Options& options, Report& report) {
    const bool program = options.program;
    report.address = plan.address;
    report.length = plan.length;
    report.differ = plan.to_write.size();
    report.unchanged = plan.unchanged;
    report.dry_run = !program;
    std::ostream& out = text(options);
    out << "Sectors of " << plan.sector_size << " bytes in " << hex(plan.address) << ".."
              << hex(plan.address + plan.length - 1) << ": " << plan.to_write.size() << " differ, " << plan.unchanged
              << " unchanged\n";
    if (!program) {
        size_t shown = 0;
        for (uint64_t sector : plan.to_write)
            if (shown++ < 8)
                out << "  would write sector " << hex(sector) << "\n";
        if (plan.to_write.size() > 8)
            out << "  ... and " << plan.to_write.size() - 8 << " more\n";
        out << "Dry run: nothing written (--program to write " << plan.to_write.size() << " sectors)\n";
        report.verdict = "DRY_RUN";
    }
}

int write_range(flash::SpiNor& nor, const Target& target, const Options& options, const std::vector<uint8_t>& image,
                uint64_t address, const std::string& image_name, Report& report, const std::function<bool()>& stop) {
    const uint64_t update = options.update_offset.value_or(nor.size() / 2);
    auto checked = flash::check_write_range(nor, address, image.size(), {update, options.overwrite_golden});
    if (!checked) {
        pdt::Error error = std::move(checked).error();
        if (error.code == EPERM && !options.overwrite_golden)  // the golden image: the option that allows it
            error.hint += " (--overwrite_golden to write it)";
        return fail(report, error.message() + "; nothing written");
    }
    auto plan = flash::plan_write(nor, address, image);
    if (!plan)
        return fail(report, plan.error().message() + "; nothing written");
    report_plan(*plan, options, report);
    if (!options.program)
        return 0;
    const std::string journal = options.journal.empty() ? default_journal(target) : options.journal;
    if (!plan->to_write.empty()) {
        auto recorded = flash::write_journal(journal, {target.address + " " + target.design, image_name, address, plan->length});
        if (!recorded)
            return fail(report, recorded.error().message() + "; nothing written");
    }
    const std::vector<uint8_t> padded = flash::padded_image(image, plan->sector_size);
    auto result = flash::execute_plan(nor, *plan, padded, stop);
    if (!result)
        return fail(report, result.error().message() + "; the journal " + journal +
                                " records the range: run again to finish it");
    if (!plan->to_write.empty())
        (void)flash::remove_journal(journal);
    report.written = result->written;
    report.skipped = result->skipped;
    report.verified_bytes = result->verified_bytes;
    text(options) << "Sectors written: " << result->written << ", skipped (unchanged): " << result->skipped << "\n";
    text(options) << "PASS: verified " << result->verified_bytes << " bytes written (each sector read back 3 times)\n";
    return 0;
}

int read_or_compare(flash::SpiNor& nor, const Options& options, Report& report) {
    std::ostream& out = text(options);
    const uint64_t flash_size = nor.size();
    // --compare checks where --write puts an image (the update image) unless told otherwise;
    // --read starts at 0.
    const uint64_t address = options.mode == Mode::Compare
                                 ? options.offset.value_or(options.update_offset.value_or(flash_size / 2))
                                 : options.offset.value_or(0);
    std::vector<uint8_t> expected;
    if (options.mode == Mode::Compare) {
        auto loaded = load(options.file);
        if (!loaded)
            return fail(report, loaded.error().message());
        expected = std::move(*loaded);
    }
    const uint64_t length = options.mode == Mode::Compare
                                ? expected.size()
                                : options.length.value_or(flash_size - std::min(address, flash_size));
    report.address = address;
    report.length = length;
    auto data = flash::read_verified(nor, address, length);
    if (!data)
        return fail(report, data.error().message());
    if (options.mode == Mode::Read) {
        std::ofstream file(options.file, std::ios::binary | std::ios::trunc);
        file.write(reinterpret_cast<const char*>(data->data()), static_cast<std::streamsize>(data->size()));
        if (!file.flush())
            return fail(report, "write " + options.file + ": cannot write the bytes read");
        out << "Read " << data->size() << " bytes from flash at " << hex(address) << " into " << options.file
            << " (3 reads agree)\n";
        return 0;
    }
    out << "Compare " << length << " bytes at " << hex(address) << " with " << options.file;
    if (auto at = flash::first_difference(address, *data, expected)) {
        out << " FAIL: first difference at " << hex(*at) << "\n";
        report.first_difference = *at;
        report.verdict = "FAIL";
        return 1;
    }
    report.verified_bytes = length;
    out << " PASS: verified " << length << " bytes\n";
    return 0;
}

}  // namespace

int identify(flash::SpiNor& nor, const Target& target, const Options& options, std::string& json,
             bool report_journal) {
    const flash::SfdpInfo& s = nor.sfdp();
    std::string journal_json = "null", journal_text;
    if (report_journal) {
        const std::string path = options.journal.empty() ? default_journal(target) : options.journal;
        auto journal = flash::read_journal(path);
        if (!journal) {
            Report ignored;
            return fail(ignored, journal.error().message());
        }
        if (*journal) {
            const flash::Journal& j = **journal;
            journal_text = "Interrupted write found (journal " + path + "): image " + j.image + " at " +
                           hex(j.address) + ".." + hex(j.address + j.length - 1) + ": the same --write finishes it\n";
            journal_json = pdt::format("{\"image\": \"%s\", \"address\": %llu, \"length\": %llu}", j.image.c_str(),
                                       static_cast<unsigned long long>(j.address),
                                       static_cast<unsigned long long>(j.length));
        }
    }
    auto protection = nor.protection();
    if (!protection) {
        Report ignored;
        return fail(ignored, protection.error().message());
    }
    const auto& id = nor.jedec_id();
    std::string erase_text, erase_json;
    for (const flash::EraseType& e : s.erase_types) {
        erase_text += pdt::format("%s%u bytes 0x%02x", erase_text.empty() ? "" : ", ", e.size, e.opcode);
        erase_json += pdt::format("%s{\"size\": %u, \"opcode\": %u}", erase_json.empty() ? "" : ", ", e.size, e.opcode);
    }
    if (options.json) {
        json += pdt::format(
            "{\"design\": \"%s\", \"address\": \"%s\", \"fifo_depth\": %u, \"spi_mode\": \"%s\", \"manufacturer_id\": %u, "
            "\"manufacturer\": \"%s\", \"memory_type\": %u, \"capacity\": %u, \"size\": %llu, \"page_size\": %u, "
            "\"address_bytes\": %u, \"addressing\": \"%s\", \"sfdp_revision\": \"%u.%u\", \"erase_types\": [%s], "
            "\"quad_enable\": \"%s\", \"status\": %u, \"protection\": {\"level\": %u, \"bottom\": %s, \"begin\": %llu, "
            "\"end\": %llu}, \"interrupted_write\": %s}",
            target.design.c_str(), target.address.c_str(), nor.controller().fifo_depth(),
            flash::to_string(nor.controller().mode()), id.manufacturer, flash::manufacturer_name(id.manufacturer),
            id.memory_type, id.capacity, static_cast<unsigned long long>(nor.size()), s.page_size, nor.address_bytes(),
            nor.addressing().c_str(), s.major, s.minor, erase_json.c_str(), flash::describe(s.quad_enable).c_str(),
            protection->status, protection->level, protection->bottom ? "true" : "false",
            static_cast<unsigned long long>(protection->begin), static_cast<unsigned long long>(protection->end),
            journal_json.c_str());
        return 0;
    }
    std::cout << "FIFO depth=" << nor.controller().fifo_depth() << "\n";
    std::cout << "SPI mode=" << flash::to_string(nor.controller().mode()) << "\n";
    std::cout << pdt::format("Manufacturer ID=0x%02x (%s)  Memory Interface Type=0x%02x  Density=0x%02x\n",
                             id.manufacturer, flash::manufacturer_name(id.manufacturer), id.memory_type, id.capacity);
    std::cout << pdt::format("Flash Size Bytes=%llu  Page Size Bytes=%u  Num Address Bytes=%u (%s)\n",
                             static_cast<unsigned long long>(nor.size()), s.page_size, nor.address_bytes(),
                             nor.addressing().c_str());
    std::cout << pdt::format("SFDP revision %u.%u, Basic Flash Parameter Table %u.%u with %u DWORDs\n", s.major,
                             s.minor, s.bfpt_major, s.bfpt_minor, s.bfpt_dwords);
    std::cout << "Erase types: " << erase_text << "\n";
    std::cout << "Read command: " << nor.read_command() << "\n";
    std::cout << "Quad enable: " << flash::describe(s.quad_enable) << "\n";
    std::cout << pdt::format("Status register=0x%02x  Protection: %s\n", protection->status,
                             protection->describe().c_str());
    std::cout << journal_text;
    return 0;
}

int run_mode(flash::SpiNor& nor, const Target& target, const Options& options, Report& report,
             const std::function<bool()>& stop) {
    static const char* const kModes[] = {"identify", "read", "compare", "write", "erase"};
    report.mode = kModes[static_cast<int>(options.mode)];
    std::ostream& out = text(options);
    const std::string journal_path = options.journal.empty() ? default_journal(target) : options.journal;
    auto journal = flash::read_journal(journal_path);
    if (!journal)
        return fail(report, journal.error().message());
    const uint64_t flash_size = nor.size();
    if (*journal) {
        const flash::Journal& j = **journal;
        report.journal = j;
        out << "Interrupted write found (journal " << journal_path << "): image " << j.image << " at " << hex(j.address)
            << ".." << hex(j.address + j.length - 1) << " on " << j.device << "\n";
        const bool erase = j.image == kEraseImage;
        const bool same = erase ? options.mode == Mode::Erase && options.offset == j.address &&
                                      options.length.value_or(0) <= j.length
                                : options.mode == Mode::Write && journal_image(options.file) == j.image &&
                                      options.offset.value_or(options.update_offset.value_or(flash_size / 2)) == j.address;
        if (same)
            out << "Finishing it: the sectors still differing are written\n";
        else if (options.mode == Mode::Write || options.mode == Mode::Erase)
            return fail(report, "an interrupted write of " + j.image + " is unfinished: finish it first (" +
                                    (erase ? "--erase --length " + hex(j.length) : "--write " + j.image) +
                                    " --offset " + hex(j.address) + " --program); nothing written");
    }
    if (options.mode == Mode::Read || options.mode == Mode::Compare)
        return read_or_compare(nor, options, report);
    if (options.mode == Mode::Erase) {
        if (!options.offset || !options.length)
            return fail(report, "--erase needs --offset and --length");
        return write_range(nor, target, options, std::vector<uint8_t>(*options.length, 0xff), *options.offset,
                           kEraseImage, report, stop);
    }
    auto image = load(options.file);
    if (!image)
        return fail(report, image.error().message() + "; nothing written");
    if (!options.any_part)
        if (auto mismatch = part_mismatch(*image, target))
            return fail(report, *mismatch + "; nothing written");
    const uint64_t address = options.offset.value_or(options.update_offset.value_or(flash_size / 2));
    return write_range(nor, target, options, *image, address, journal_image(options.file), report, stop);
}

std::optional<std::string> parse_options(const OptionText& t, Options& o, double& busy_seconds) {
    const int modes = !t.read.empty() + !t.compare.empty() + !t.write.empty() + t.erase;
    if (modes > 1)
        return "give one of --read, --compare, --write, --erase";
    o.mode = !t.read.empty() ? Mode::Read : !t.compare.empty() ? Mode::Compare
             : !t.write.empty() ? Mode::Write : t.erase ? Mode::Erase : Mode::Identify;
    o.file = t.read + t.compare + t.write;
    auto number = [](const char* name, const std::string& text, std::optional<uint64_t>& out) -> std::optional<std::string> {
        if (text.empty())
            return std::nullopt;
        auto value = pdt::parse_size(text);
        if (!value)
            return std::string("--") + name + " " + value.error().message();
        out = *value;
        return std::nullopt;
    };
    if (auto e = number("offset", t.offset, o.offset))
        return e;
    if (auto e = number("length", t.length, o.length))
        return e;
    if (auto e = number("update_offset", t.update_offset, o.update_offset))
        return e;
    auto seconds = pdt::parse_seconds("busy_timeout", t.busy_timeout);
    if (!seconds)
        return seconds.error().message();
    busy_seconds = *seconds;
    return std::nullopt;
}

std::string to_json(const Report& r) {
    std::string journal = "null";
    if (r.journal)
        journal = pdt::format("{\"device\": \"%s\", \"image\": \"%s\", \"address\": %llu, \"length\": %llu}",
                              r.journal->device.c_str(), r.journal->image.c_str(),
                              static_cast<unsigned long long>(r.journal->address),
                              static_cast<unsigned long long>(r.journal->length));
    std::string error;
    for (char c : r.error)
        error += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return pdt::format(
        "{\"mode\": \"%s\", \"verdict\": \"%s\", \"address\": %llu, \"length\": %llu, \"sectors_differ\": %zu, "
        "\"sectors_unchanged\": %zu, \"sectors_written\": %zu, \"sectors_skipped\": %zu, \"verified_bytes\": %llu, "
        "\"dry_run\": %s, \"first_difference\": %s, \"interrupted_write\": %s, \"error\": %s}",
        r.mode, r.verdict.c_str(), static_cast<unsigned long long>(r.address), static_cast<unsigned long long>(r.length),
        r.differ, r.unchanged, r.written, r.skipped, static_cast<unsigned long long>(r.verified_bytes),
        r.dry_run ? "true" : "false", r.first_difference ? std::to_string(*r.first_difference).c_str() : "null",
        journal.c_str(), r.error.empty() ? "null" : ("\"" + error + "\"").c_str());
}

}  // namespace flasher
