import FuzzSupport

// libFuzzer entry point: the CAF parser and every codec it leads to.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = decodeEverything(fuzzInput(data, size, magics: ["caff"]))
    return 0
}
