import Foundation

/// The files a power cut could leave: the folders and each file's bytes, by path relative to
/// the store's folder.
struct CrashImage: Hashable {
    var folders: Set<String> = []
    var files: [String: Data] = [:]
    var modes: [String: mode_t] = [:]

    /// How an image treats what was not synced.
    enum Choice: CaseIterable {
        /// Nothing unsynced survives.
        case nothing
        /// Everything reached the disk (what a process crash leaves).
        case everything
        /// Everything synced and one unsynced sector of one file.
        case oneSector
        /// Each unsynced change to names and each unsynced sector, kept or dropped at random.
        case anything
    }

    /// The sector size writes tear at.
    static let sector = 512

    /// Writes the image into the empty folder `url`.
    func write(to url: URL) throws {
        for folder in folders.sorted() {
            try FileManager.default.createDirectory(at: url.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (name, bytes) in files {
            let path = url.appendingPathComponent(name)
            try bytes.write(to: path)
            if let mode = modes[name] { chmod(path.path, mode) }
        }
    }
}

extension CrashPoint {
    /// One image this point allows under `model`, made by `choice`, random parts drawn from
    /// `generator`.
    func image(_ choice: CrashImage.Choice, model: PersistenceModel, using generator: inout SeededGenerator) -> CrashImage {
        let names = survivingNames(choice, model: model, using: &generator)
        var image = CrashImage()
        var torn: (file: Int, sector: Int)?
        if choice == .oneSector {
            let candidates = names.values.compactMap { entry -> (Int, [Int])? in
                guard case .file(let file) = entry else { return nil }
                let sectors = unsyncedSectors(of: file, model: model)
                return sectors.isEmpty ? nil : (file, sectors)
            }.sorted { $0.0 < $1.0 }
            if let pick = candidates.randomElement(using: &generator) { torn = (pick.0, pick.1.randomElement(using: &generator)!) }
        }
        for (name, entry) in names {
            // A name whose folder did not survive is gone with it.
            var folder = parent(of: name)
            var reachable = true
            while !folder.isEmpty {
                if names[folder] != .folder { reachable = false }
                folder = parent(of: folder)
            }
            guard reachable else { continue }
            switch entry {
            case .folder:
                image.folders.insert(name)
            case .file(let file):
                image.files[name] = bytes(of: file, choice, torn: torn?.file == file ? torn?.sector : nil, model: model, using: &generator)
                image.modes[name] = modes[file]
            }
        }
        return image
    }

    /// The names after the power cut: the durable ones, and of the pending changes all,
    /// none, or what the model allows at random (a prefix in order, or any subset).
    private func survivingNames(_ choice: CrashImage.Choice, model: PersistenceModel, using generator: inout SeededGenerator) -> [String: FileEntry] {
        var names = durableNames
        let kept: [NameChange]
        switch choice {
        case .nothing, .oneSector: kept = []
        case .everything: kept = pending
        case .anything:
            switch model {
            case .ext4Ordered: kept = Array(pending.prefix(Int.random(in: 0...pending.count, using: &generator)))
            case .anythingUnsynced: kept = pending.filter { _ in Bool.random(using: &generator) }
            }
        }
        for change in kept {
            for (name, entry) in change { names[name] = entry }
        }
        return names
    }

    /// The bytes of `range` before a write of the unsynced sectors: synced bytes, and past
    /// the synced size what the model says (the new bytes in order, or zeros).
    private func oldBytes(_ file: Int, _ range: Range<Int>, model: PersistenceModel) -> Data {
        let synced = durable[file] ?? Data()
        var result = Self.slice(synced, range)
        if model == .ext4Ordered, range.upperBound > synced.count {
            let tail = max(range.lowerBound, synced.count)..<range.upperBound
            result.replaceSubrange((tail.lowerBound - range.lowerBound)..<range.count, with: Self.slice(current[file] ?? Data(), tail))
        }
        return result
    }

    private func newBytes(_ file: Int, _ range: Range<Int>) -> Data { Self.slice(current[file] ?? Data(), range) }

    /// `range` of `data`, zeros where it runs past the end.
    private static func slice(_ data: Data, _ range: Range<Int>) -> Data {
        var result = Data(count: range.count)
        let end = min(range.upperBound, data.count)
        if range.lowerBound < end {
            result.replaceSubrange(0..<(end - range.lowerBound), with: data[(data.startIndex + range.lowerBound)..<(data.startIndex + end)])
        }
        return result
    }

    private static func sizeBetween(_ old: Int, _ new: Int, using generator: inout SeededGenerator) -> Int {
        guard new > old + CrashImage.sector else { return new }
        let sector = Int.random(in: (old / CrashImage.sector + 1)...(new / CrashImage.sector), using: &generator)
        return min(new, sector * CrashImage.sector)
    }

    private static func sectors(_ length: Int) -> [Range<Int>] {
        stride(from: 0, to: length, by: CrashImage.sector).map { $0..<min(length, $0 + CrashImage.sector) }
    }

    /// The sectors of `file` whose synced and current bytes differ.
    private func unsyncedSectors(of file: Int, model: PersistenceModel) -> [Int] {
        let synced = durable[file] ?? Data()
        let now = current[file] ?? synced
        guard synced != now else { return [] }
        return Self.sectors(max(synced.count, now.count)).enumerated().compactMap { index, range in
            range.lowerBound < now.count && oldBytes(file, range, model: model) != newBytes(file, range) ? index : nil
        }
    }

    private func bytes(
        of file: Int, _ choice: CrashImage.Choice, torn: Int?, model: PersistenceModel, using generator: inout SeededGenerator
    ) -> Data {
        let synced = durable[file] ?? Data()
        let now = current[file] ?? synced
        if synced == now { return synced }
        let length: Int
        switch choice {
        case .nothing: length = synced.count
        case .oneSector: length = torn.map { max(synced.count, min(now.count, ($0 + 1) * CrashImage.sector)) } ?? synced.count
        case .everything: length = now.count
        case .anything:
            // The old size, the new one, or (growing) a size between, at a sector's end: the
            // writeback reached part of what was appended.
            let sizes = [synced.count, now.count, Self.sizeBetween(synced.count, now.count, using: &generator)]
            length = sizes.randomElement(using: &generator)!
        }
        var result = Data(capacity: length)
        for (index, range) in Self.sectors(length).enumerated() {
            // Past the current size, the file was cut: the cut is a change of its size, kept
            // or not as a whole (by `length`), never a sector of zeros in old bytes.
            guard range.lowerBound < now.count else {
                result.append(oldBytes(file, range, model: model))
                continue
            }
            let keep: Bool
            switch choice {
            case .nothing: keep = false
            case .everything: keep = true
            case .oneSector: keep = index == torn
            case .anything: keep = Bool.random(using: &generator)
            }
            result.append(keep ? newBytes(file, range) : oldBytes(file, range, model: model))
        }
        return result
    }
}
