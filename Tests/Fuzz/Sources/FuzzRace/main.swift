import FuzzSupport

// libFuzzer entry point: a WAV, AIFF or CAF file whose bytes change between two reads of it
// (FuzzSupport/Race.swift says how the input says when and what).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = RaceInput(data, size) else { return 0 }
    decodeWhileTheFileChanges(before: input.before, after: input.after, swapBefore: input.swapBefore)
    return 0
}
