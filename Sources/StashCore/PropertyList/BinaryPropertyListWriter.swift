import Foundation

/// Writes Apple's binary property list format (`bplist00`).
///
/// Layout: the 8-byte header, every object once, an offset table giving each object's
/// position, and a 32-byte trailer (sizes of offsets and object references, object count,
/// top object, offset table position). Equal scalars are written once and shared, as Apple's
/// and Python's writers do. Dictionary keys are written in sorted order so that one value
/// always gives the same bytes.
struct BinaryPropertyListWriter {
    /// One object of the flattened tree: a scalar, or a collection of object references.
    private enum Object {
        case scalar(PropertyList)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private var objects: [Object] = []
    private var shared: [PropertyList: Int] = [:]

    static func encode(_ value: PropertyList) throws -> Data {
        try value.validate()
        var writer = BinaryPropertyListWriter()
        let top = writer.flatten(value)
        return writer.serialize(top: top)
    }

    /// Assigns object numbers, depth first, collections before their children.
    private mutating func flatten(_ value: PropertyList) -> Int {
        switch value {
        case .array(let items):
            let index = reserve()
            objects[index] = .array(items.map { flatten($0) })
            return index
        case .dictionary(let entries):
            let index = reserve()
            let sorted = entries.sorted { $0.key < $1.key }
            let keyRefs = sorted.map { flatten(.string($0.key)) }
            let valueRefs = sorted.map { flatten($0.value) }
            objects[index] = .dictionary(keys: keyRefs, values: valueRefs)
            return index
        default:
            if let existing = shared[value] { return existing }
            let index = objects.count
            objects.append(.scalar(value))
            shared[value] = index
            return index
        }
    }

    private mutating func reserve() -> Int {
        objects.append(.array([]))
        return objects.count - 1
    }

    private func serialize(top: Int) -> Data {
        let refSize = BinaryPropertyListWriter.byteCount(for: UInt64(objects.count))
        var out = [UInt8]("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .scalar(let value):
                BinaryPropertyListWriter.appendScalar(value, to: &out)
            case .array(let refs):
                BinaryPropertyListWriter.appendMarker(0xA0, count: refs.count, to: &out)
                for ref in refs { BinaryPropertyListWriter.appendUInt(UInt64(ref), size: refSize, to: &out) }
            case .dictionary(let keys, let values):
                BinaryPropertyListWriter.appendMarker(0xD0, count: keys.count, to: &out)
                for ref in keys { BinaryPropertyListWriter.appendUInt(UInt64(ref), size: refSize, to: &out) }
                for ref in values { BinaryPropertyListWriter.appendUInt(UInt64(ref), size: refSize, to: &out) }
            }
        }
        let tableOffset = out.count
        let offsetSize = BinaryPropertyListWriter.byteCount(for: UInt64(tableOffset))
        for offset in offsets { BinaryPropertyListWriter.appendUInt(UInt64(offset), size: offsetSize, to: &out) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])  // unused, then the sort version
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        BinaryPropertyListWriter.appendUInt(UInt64(objects.count), size: 8, to: &out)
        BinaryPropertyListWriter.appendUInt(UInt64(top), size: 8, to: &out)
        BinaryPropertyListWriter.appendUInt(UInt64(tableOffset), size: 8, to: &out)
        return Data(out)
    }

    private static func appendScalar(_ value: PropertyList, to out: inout [UInt8]) {
        switch value {
        case .bool(let flag):
            out.append(flag ? 0x09 : 0x08)
        case .integer(let number):
            appendInteger(number, to: &out)
        case .real(let number):
            out.append(0x23)
            appendUInt(number.bitPattern, size: 8, to: &out)
        case .date(let date):
            out.append(0x33)
            appendUInt(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
        case .data(let bytes):
            appendMarker(0x40, count: bytes.count, to: &out)
            out.append(contentsOf: bytes)
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: text.utf8.count, to: &out)
                out.append(contentsOf: text.utf8)
            } else {
                let units = Array(text.utf16)
                appendMarker(0x60, count: units.count, to: &out)
                for unit in units {
                    out.append(UInt8(unit >> 8))
                    out.append(UInt8(unit & 0xFF))
                }
            }
        case .array, .dictionary:
            break  // flattened by the caller
        }
    }

    /// Non-negative integers take the fewest of 1, 2 or 4 bytes (read as unsigned);
    /// everything else takes 8 bytes, read as signed.
    private static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
        let size = number < 0 ? 8 : byteCount(for: UInt64(number))
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
        out.append(0x10 | exponent)
        appendUInt(UInt64(bitPattern: number), size: size, to: &out)
    }

    /// A collection or byte-string marker; counts of 15 and more follow as an integer object.
    private static func appendMarker(_ marker: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    private static func appendUInt(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func byteCount(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }
}
