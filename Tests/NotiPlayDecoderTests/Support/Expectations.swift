import NotiPlayDecoder
import Testing

/// Parses and decodes `bytes` in one go.
func decode(_ bytes: [UInt8]) throws -> (description: StreamDescription, samples: [Float]) {
    let decoder = try SoundDecoder(bytes: bytes)
    return (decoder.description, try decoder.readAll())
}

/// Reads the whole sound `framesPerRead` frames at a time.
func readFloat(_ decoder: SoundDecoder, framesPerRead: Int) throws -> [Float] {
    var all: [Float] = []
    var buffer = [Float](repeating: .nan, count: framesPerRead * decoder.description.channelCount)
    while true {
        let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        if n == 0 { return all }
        all += buffer[0..<(n * decoder.description.channelCount)]
    }
}

/// The same, as 16-bit integers.
func readInt16(_ decoder: SoundDecoder, framesPerRead: Int) throws -> [Int16] {
    var all: [Int16] = []
    var buffer = [Int16](repeating: 0x5555, count: framesPerRead * decoder.description.channelCount)
    while true {
        let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
        if n == 0 { return all }
        all += buffer[0..<(n * decoder.description.channelCount)]
    }
}

/// Expects opening `bytes` to fail with `kind`, and the message to be one line that says
/// `fragment` (case-insensitively). Returns the error for further checks.
@discardableResult
func expectFailure(
    _ kind: DecodingError.Kind, saying fragment: String, _ bytes: [UInt8],
    sourceLocation: SourceLocation = #_sourceLocation
) -> DecodingError? {
    expectFailure(kind, saying: fragment, sourceLocation: sourceLocation) { try SoundDecoder(bytes: bytes) }
}

@discardableResult
func expectFailure(
    _ kind: DecodingError.Kind, saying fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ open: () throws -> SoundDecoder
) -> DecodingError? {
    let error = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { _ = try open() }
    guard let error else { return nil }
    #expect(error.kind == kind, "message: \(error.message)", sourceLocation: sourceLocation)
    #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    #expect(!error.message.contains("\n"), "not one line: \(error.message)", sourceLocation: sourceLocation)
    #expect(
        error.message.lowercased().contains(fragment.lowercased()),
        "\"\(error.message)\" does not say \"\(fragment)\"", sourceLocation: sourceLocation)
    return error
}
