import Foundation

/// Reads Apple's binary property list format (`bplist00`).
///
/// Every offset, count and reference read from the file is checked against the file's size
/// before use, references back to an object being read (cycles) are refused, and nesting is
/// bounded, so garbage gives a ``StashError`` and never a crash. Objects referenced several
/// times are decoded once.
struct BinaryPropertyListReader {
    static let magic = Array("bplist00".utf8)
    private static let trailerSize = 32
    private static let maximumDepth = 256

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let refSize: Int
    private let objectCount: Int
    private let tableOffset: Int
    private let top: Int
    private var decoded: [Int: PropertyList] = [:]
    private var inProgress: Set<Int> = []
    private var path = PropertyListPath()

    static func decode(_ data: Data) throws -> PropertyList {
        var reader = try BinaryPropertyListReader(bytes: Array(data))
        return try reader.readObject(reader.top)
    }

    private init(bytes: [UInt8]) throws {
        self.bytes = bytes
        guard bytes.count >= BinaryPropertyListReader.magic.count + BinaryPropertyListReader.trailerSize else {
            throw StashError(.truncatedFile, "binary property list is shorter than its header and trailer")
        }
        guard bytes.starts(with: BinaryPropertyListReader.magic) else {
            throw StashError(.corruptFile, "not a binary property list (no bplist00 header)")
        }
        let trailer = bytes.count - BinaryPropertyListReader.trailerSize
        offsetSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let count = BinaryPropertyListReader.bigEndian(bytes[(trailer + 8)..<(trailer + 16)])
        let top = BinaryPropertyListReader.bigEndian(bytes[(trailer + 16)..<(trailer + 24)])
        let table = BinaryPropertyListReader.bigEndian(bytes[(trailer + 24)..<(trailer + 32)])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw StashError(.corruptFile, "binary property list trailer has invalid sizes (truncated?)")
        }
        // Every object takes at least one byte and one offset entry: bounds the count before
        // any multiplication can overflow.
        guard count >= 1, count <= UInt64(trailer), top < count, table >= 8, table <= UInt64(trailer),
              UInt64(trailer) - table >= count * UInt64(offsetSize)
        else {
            throw StashError(.corruptFile, "binary property list trailer points outside the file (truncated?)")
        }
        objectCount = Int(count)
        self.top = Int(top)
        tableOffset = Int(table)
    }

    private mutating func readObject(_ index: Int) throws -> PropertyList {
        if let known = decoded[index] { return known }
        guard index >= 0, index < objectCount else { throw path.corrupt("object reference \(index) is out of range") }
        guard !inProgress.contains(index) else { throw path.corrupt("object \(index) contains itself") }
        guard inProgress.count < BinaryPropertyListReader.maximumDepth else {
            throw path.corrupt("nesting deeper than \(BinaryPropertyListReader.maximumDepth) levels")
        }
        let entry = tableOffset + index * offsetSize
        // An 8-byte offset may not fit an Int: out of range like any other bad offset.
        guard let offset = Int(exactly: BinaryPropertyListReader.bigEndian(bytes[entry..<(entry + offsetSize)])),
              offset >= 8, offset < tableOffset else { throw path.corrupt("object \(index) starts outside the object area") }
        inProgress.insert(index)
        defer { inProgress.remove(index) }
        let value = try readValue(at: offset)
        decoded[index] = value
        return value
    }

    private mutating func readValue(at offset: Int) throws -> PropertyList {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            case 0x00: throw path.unsupported("null is not a property list value")
            default: throw path.corrupt(String(format: "unknown object marker 0x%02x", marker))
            }
        case 0x1:
            return .integer(try readInteger(at: offset))
        case 0x2:
            let size = 1 << low
            let raw = try slice(offset + 1, size)
            let value: Double
            switch size {
            case 4: value = Double(Float(bitPattern: UInt32(BinaryPropertyListReader.bigEndian(raw))))
            case 8: value = Double(bitPattern: BinaryPropertyListReader.bigEndian(raw))
            default: throw path.corrupt("real of \(size) bytes")
            }
            try PropertyList.checkFinite(value, at: path)
            return .real(value)
        case 0x3:
            guard marker == 0x33 else { throw path.corrupt(String(format: "unknown object marker 0x%02x", marker)) }
            let seconds = Double(bitPattern: BinaryPropertyListReader.bigEndian(try slice(offset + 1, 8)))
            try PropertyList.checkFinite(seconds, at: path)
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, start) = try readCount(low, at: offset)
            return .data(Data(try slice(start, count)))
        case 0x5:
            let (count, start) = try readCount(low, at: offset)
            let raw = try slice(start, count)
            // Apple writes ASCII here; bytes above 0x7F are read as Latin-1 rather than refused.
            return .string(String(raw.map { Character(Unicode.Scalar($0)) }))
        case 0x6:
            let (count, start) = try readCount(low, at: offset)
            guard count <= tableOffset / 2 else { throw path.corrupt("string longer than the file") }
            let raw = try slice(start, count * 2)
            var units: [UInt16] = []
            units.reserveCapacity(count)
            var index = raw.startIndex
            while index < raw.endIndex {
                units.append(UInt16(raw[index]) << 8 | UInt16(raw[index + 1]))
                index += 2
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            throw path.unsupported("UID values (NSKeyedArchiver references) are not supported")
        case 0xA:
            let (count, start) = try readCount(low, at: offset)
            let refs = try readRefs(count, at: start)
            var items: [PropertyList] = []
            items.reserveCapacity(count)
            for (position, ref) in refs.enumerated() {
                path.push(position)
                items.append(try readObject(ref))
                path.pop()
            }
            return .array(items)
        case 0xC:
            throw path.unsupported("sets are not supported")
        case 0xD:
            let (count, start) = try readCount(low, at: offset)
            let refs = try readRefs(count * 2, at: start)
            var entries: [String: PropertyList] = [:]
            entries.reserveCapacity(count)
            for position in 0..<count {
                guard case .string(let key) = try readObject(refs[position]) else {
                    throw path.unsupported("dictionary key \(position) is not a string")
                }
                path.push(key)
                try path.add(try readObject(refs[count + position]), forKey: key, to: &entries)
                path.pop()
            }
            return .dictionary(entries)
        default:
            throw path.corrupt(String(format: "unknown object marker 0x%02x", marker))
        }
    }

    /// An integer object: 1, 2 and 4 bytes are unsigned, 8 bytes signed, 16 bytes are
    /// accepted when the value fits in 64 signed bits.
    private func readInteger(at offset: Int) throws -> Int64 {
        let size = 1 << Int(bytes[offset] & 0x0F)
        let raw = try slice(offset + 1, size)
        switch size {
        case 1, 2, 4, 8:
            return Int64(bitPattern: BinaryPropertyListReader.bigEndian(raw))
        case 16:
            let high = BinaryPropertyListReader.bigEndian(raw.prefix(8))
            let low = Int64(bitPattern: BinaryPropertyListReader.bigEndian(raw.suffix(8)))
            guard (high == 0 && low >= 0) || (high == UInt64.max && low < 0) else {
                throw path.unsupported("integer does not fit in 64 bits")
            }
            return low
        default:
            throw path.corrupt("integer of \(size) bytes")
        }
    }

    /// The element count of a marker: its low nibble, or an integer object after it.
    private func readCount(_ low: Int, at offset: Int) throws -> (count: Int, start: Int) {
        if low != 0x0F { return (low, offset + 1) }
        guard offset + 1 < tableOffset, bytes[offset + 1] >> 4 == 0x1 else {
            throw path.corrupt("bad length of a collection")
        }
        let count = try readInteger(at: offset + 1)
        guard count >= 0, count <= Int64(tableOffset) else { throw path.corrupt("length \(count) is larger than the file") }
        return (Int(count), offset + 2 + (1 << Int(bytes[offset + 1] & 0x0F)))
    }

    private func readRefs(_ count: Int, at start: Int) throws -> [Int] {
        guard count <= tableOffset else { throw path.corrupt("collection larger than the file") }
        let raw = try slice(start, count * refSize)
        var refs: [Int] = []
        refs.reserveCapacity(count)
        var index = raw.startIndex
        while index < raw.endIndex {
            refs.append(Int(truncatingIfNeeded: BinaryPropertyListReader.bigEndian(raw[index..<(index + refSize)])))
            index += refSize
        }
        return refs
    }

    /// `count` bytes at `start`, all inside the object area.
    private func slice(_ start: Int, _ count: Int) throws -> ArraySlice<UInt8> {
        guard start >= 0, count >= 0, start <= tableOffset, count <= tableOffset - start else {
            throw path.corrupt("object runs past the end of the object area (truncated?)")
        }
        return bytes[start..<(start + count)]
    }

    private static func bigEndian(_ raw: ArraySlice<UInt8>) -> UInt64 {
        raw.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
