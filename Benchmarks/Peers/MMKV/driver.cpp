// The MMKV contender of `stash-bench preferences`: a small driver, written for Stash's
// benchmark, that links MMKV's C++ core (built from MMKV's own sources by
// Scripts/build-mmkv-peer.sh) and runs the suite's workload on request.
//
//   driver <folder> <workload-file>
//
// The workload file (written by the bench, read here untimed) holds the suite's data:
//   ints <N>            then N lines "<key> <decimal int64>"
//   strings <N>         then N lines "<key> <string>" (the rest of the line)
// Requests come one per line on stdin; each reply is one line on stdout, "<ops> <ns>", the
// operations done and the nanoseconds they took (CLOCK_MONOTONIC around the operations
// only), or "error <text>".
//   write-int <count> | read-int <count> | write-string <count> | read-string <count>
//   check                 every int and string reads back as written ("<N> 0" or an error)
//   prepare-open <keys>   writes <keys> ints (key int-<i>, value i) into instance
//                         open-<keys>, then closes it
//   open <keys>           opens instance open-<keys>, counts its keys, closes it (timed)
//
// MMKV is used as its documentation sets it up in an app: MMKV::initializeMMKV(folder),
// MMKV::mmkvWithID(id) in its default single-process mode, set(int64_t, key) /
// getInt64(key), set(std::string, key) / getString(key, result). Logging is off
// (MMKVLogNone) so that nothing but replies reaches stdout.
#include "MMKV.h"

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Workload {
    std::vector<std::string> intKeys;
    std::vector<int64_t> ints;
    std::vector<std::string> stringKeys;
    std::vector<std::string> strings;
};

uint64_t nowNanoseconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

bool readSection(std::istream &in, const std::string &name, std::vector<std::string> &keys,
                 std::vector<std::string> &values) {
    std::string line;
    if (!std::getline(in, line)) return false;
    std::istringstream header(line);
    std::string word;
    size_t count = 0;
    if (!(header >> word >> count) || word != name) return false;
    keys.reserve(count);
    values.reserve(count);
    for (size_t i = 0; i < count; i++) {
        if (!std::getline(in, line)) return false;
        size_t space = line.find(' ');
        if (space == std::string::npos) return false;
        keys.push_back(line.substr(0, space));
        values.push_back(line.substr(space + 1));
    }
    return true;
}

bool loadWorkload(const char *path, Workload &work) {
    std::ifstream in(path);
    std::vector<std::string> intTexts;
    if (!readSection(in, "ints", work.intKeys, intTexts)) return false;
    if (!readSection(in, "strings", work.stringKeys, work.strings)) return false;
    work.ints.reserve(intTexts.size());
    for (const auto &text : intTexts) work.ints.push_back(std::stoll(text));
    return true;
}

void reply(uint64_t ops, uint64_t nanoseconds) {
    std::printf("%llu %llu\n", (unsigned long long)ops, (unsigned long long)nanoseconds);
    std::fflush(stdout);
}

void fail(const std::string &text) {
    std::printf("error %s\n", text.c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s <folder> <workload-file>\n", argv[0]);
        return 2;
    }
    Workload work;
    if (!loadWorkload(argv[2], work)) {
        std::fprintf(stderr, "cannot read the workload %s\n", argv[2]);
        return 2;
    }
    MMKV::initializeMMKV(argv[1], MMKVLogNone);
    MMKV *kv = MMKV::mmkvWithID("bench");
    if (!kv) {
        std::fprintf(stderr, "mmkvWithID failed\n");
        return 1;
    }
    uint64_t sink = 0;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream request(line);
        std::string command;
        size_t count = 0;
        request >> command >> count;
        if (command == "write-int" && count <= work.ints.size()) {
            uint64_t start = nowNanoseconds();
            for (size_t i = 0; i < count; i++) kv->set(work.ints[i], work.intKeys[i]);
            reply(count, nowNanoseconds() - start);
        } else if (command == "read-int" && count <= work.ints.size()) {
            uint64_t start = nowNanoseconds();
            for (size_t i = 0; i < count; i++) sink += uint64_t(kv->getInt64(work.intKeys[i]));
            reply(count, nowNanoseconds() - start);
        } else if (command == "write-string" && count <= work.strings.size()) {
            uint64_t start = nowNanoseconds();
            for (size_t i = 0; i < count; i++) kv->set(work.strings[i], work.stringKeys[i]);
            reply(count, nowNanoseconds() - start);
        } else if (command == "read-string" && count <= work.strings.size()) {
            std::string result;
            uint64_t start = nowNanoseconds();
            for (size_t i = 0; i < count; i++) {
                kv->getString(work.stringKeys[i], result);
                sink += result.size();
            }
            reply(count, nowNanoseconds() - start);
        } else if (command == "check") {
            std::string result;
            bool intact = true;
            for (size_t i = 0; i < work.ints.size() && intact; i++) {
                intact = kv->getInt64(work.intKeys[i], ~work.ints[i]) == work.ints[i];
            }
            for (size_t i = 0; i < work.strings.size() && intact; i++) {
                intact = kv->getString(work.stringKeys[i], result) && result == work.strings[i];
            }
            if (intact) reply(work.ints.size() + work.strings.size(), 0); else fail("a value read back differs");
        } else if (command == "prepare-open" && count > 0) {
            MMKV *writer = MMKV::mmkvWithID("open-" + std::to_string(count));
            writer->clearAll();
            for (size_t i = 0; i < count; i++) writer->set(int64_t(i), "int-" + std::to_string(i));
            writer->close();
            reply(count, 0);
        } else if (command == "open" && count > 0) {
            std::string id = "open-" + std::to_string(count);
            uint64_t start = nowNanoseconds();
            MMKV *opened = MMKV::mmkvWithID(id);
            size_t keys = opened ? opened->count() : 0;
            if (opened) opened->close();
            uint64_t elapsed = nowNanoseconds() - start;
            if (keys != count) fail("open found " + std::to_string(keys) + " keys"); else reply(1, elapsed);
        } else {
            fail("unknown request: " + line);
        }
    }
    kv->close();
    return sink == 42 ? 3 : 0;
}
