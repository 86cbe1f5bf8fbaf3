import Foundation
import StashCore
import StashSecure
import StashTestSupport
import Testing

@Suite(.timeLimit(.minutes(3)))
struct VaultProcessTests {
    private func testHost(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(BuiltProducts.testHost, arguments)
    }

    /// Both children open the vault, then start together behind a barrier and write 150
    /// entries each (read-modify-write of one file under its lock): nothing may be lost.
    @Test func twoWriterProcessesLoseNothing() throws {
        let fixture = VaultFixture()
        let count = 150
        let barrier = StartBarrier(in: fixture.folder)
        let children = try ["left", "right"].map { prefix in
            try testHost(["secure.write-many", fixture.keyring.folder.path, "com.example.app", prefix, String(count), barrier.path])
        }
        for child in children { #expect(child.readLine() == "ready") }
        try barrier.release()
        for child in children {
            let lines = child.readAllLines()
            #expect(child.wait() == 0, "child failed: \(child.standardError())")
            #expect(lines.filter { $0.hasPrefix("wrote ") }.count == count)
        }
        let vault = try fixture.vault()
        let names = try vault.allKeys
        #expect(names.count == 2 * count)
        for prefix in ["left", "right"] {
            for index in 0..<count {
                #expect(try vault.string(forKey: "\(prefix)-\(index)") == "value of \(prefix)-\(index)")
            }
        }
    }

    @Test func aWriterKilledMidwayLeavesAReadableVaultWithEveryAcknowledgedEntry() throws {
        let fixture = VaultFixture()
        let child = try testHost(["secure.write-many", fixture.keyring.folder.path, "com.example.app", "k", "500"])
        var acknowledged: [String] = []
        while acknowledged.count < 8, let line = child.readLine() {
            if line.hasPrefix("wrote ") { acknowledged.append(String(line.dropFirst("wrote ".count))) }
        }
        child.kill()
        child.wait()
        let vault = try fixture.vault()
        let names = try vault.allKeys
        #expect(acknowledged.count == 8)
        for name in acknowledged {
            #expect(names.contains(name))
            #expect(try vault.string(forKey: name) == "value of \(name)")
        }
    }
}
