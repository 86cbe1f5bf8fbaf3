import Foundation
import StashCore
import StashTestSupport
import Testing
@testable import StashCache

struct BoundedQueueTests {
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 500_000))

    @Test func firstInFirstOutDroppingTheOldestWhenFull() {
        let queue = BoundedQueue<Int>(countLimit: 3, clock: clock)
        #expect(queue.isEmpty)
        #expect(queue.append(1) == nil)
        queue.append(2)
        queue.append(3)
        #expect(queue.append(4) == 1)
        #expect(queue.elements == [2, 3, 4])
        #expect(queue.first == 2)
        #expect(queue.popFirst() == 2)
        queue.append(5)
        queue.append(6)
        #expect(queue.elements == [4, 5, 6])
        #expect(queue.count == 3)
        queue.removeAll()
        #expect(queue.popFirst() == nil)
        #expect(queue.elements == [])
    }

    @Test func wrapsAroundManyTimes() {
        let queue = BoundedQueue<Int>(countLimit: 7, clock: clock)
        for value in 0..<1_000 { queue.append(value) }
        #expect(queue.elements == Array(993..<1_000))
        for expected in 993..<1_000 { #expect(queue.popFirst() == expected) }
        #expect(queue.isEmpty)
    }

    @Test func aZeroCapacityQueueHandsBackWhatItIsGiven() {
        let queue = BoundedQueue<String>(countLimit: 0, clock: clock)
        #expect(queue.append("x") == "x")
        #expect(queue.isEmpty)
    }

    @Test func elementsExpireAfterTheMaximumAge() {
        let queue = BoundedQueue<String>(countLimit: 10, ageLimit: 60, clock: clock)
        queue.append("old")
        clock.advance(by: 30)
        queue.append("new")
        clock.advance(by: 30)
        #expect(queue.elements == ["new"])
        #expect(queue.first == "new")
        clock.advance(by: 30)
        #expect(queue.isEmpty)
    }

    @Test func concurrentAppendersLoseNothingButTheOverflow() async {
        let queue = BoundedQueue<Int>(countLimit: 100, clock: clock)
        let dropped = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var dropped = 0
                    for value in 0..<500 where queue.append(task * 1_000 + value) != nil { dropped += 1 }
                    return dropped
                }
            }
            return await group.reduce(0, +)
        }
        #expect(dropped == 1_900)
        #expect(queue.count == 100)
        for task in 0..<4 {
            let mine = queue.elements.filter { $0 / 1_000 == task }
            #expect(mine == mine.sorted())                     // each task's order is kept
        }
    }

    @Test func saveAndLoadRoundTrip() throws {
        let folder = TemporaryFolder("queue")
        let url = folder.file("queue.json")
        let queue = BoundedQueue<String>(countLimit: 4, ageLimit: 100, clock: clock)
        for word in ["a", "b", "c"] {
            queue.append(word)
            clock.advance(by: 10)
        }
        try queue.save(to: url)
        clock.advance(by: 75)                                 // "a" (age 105) has expired since
        let loaded = try BoundedQueue<String>(contentsOf: url, countLimit: 4, ageLimit: 100, clock: clock)
        #expect(loaded.elements == ["b", "c"])
        let smaller = try BoundedQueue<String>(contentsOf: url, countLimit: 1, clock: clock)
        #expect(smaller.elements == ["c"])
    }

    @Test func loadingReportsMissingAndCorruptFiles() throws {
        let folder = TemporaryFolder("queue")
        let url = folder.file("queue.json")
        expectCollectionError(.notFound) { try BoundedQueue<Int>(contentsOf: url, countLimit: 1) }
        try FileStore.write(Data([0xFF, 0x00, 0x7B]), to: url)
        expectCollectionError(.corruptFile) { try BoundedQueue<Int>(contentsOf: url, countLimit: 1) }
        try FileStore.write(Data(#"{"format":"stash.queue","version":1}"#.utf8), to: url)
        expectCollectionError(.corruptFile) { try BoundedQueue<Int>(contentsOf: url, countLimit: 1) }
    }
}
