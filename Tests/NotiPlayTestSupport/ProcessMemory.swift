import Foundation

/// Resident memory of this process, from /proc/self/status (Linux).
public enum ProcessMemory {
    /// Current resident set size in KiB (`VmRSS`).
    public static func residentKiB() -> Int? { field("VmRSS:") }

    /// Peak resident set size in KiB since the process started or since `resetPeak()` (`VmHWM`).
    public static func peakResidentKiB() -> Int? { field("VmHWM:") }

    /// Resets `VmHWM` to the current resident size (Linux 4.0 and later: `5` in clear_refs).
    /// Returns false where the kernel refuses.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }
}
