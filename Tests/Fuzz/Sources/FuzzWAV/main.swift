import FuzzSupport

// libFuzzer entry point: the WAV parser and every codec it leads to.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = decodeEverything(fuzzInput(data, size, magics: ["RIFF", "RIFX", "RF64"]))
    return 0
}
