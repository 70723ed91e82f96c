/// File names as the user typed them. ArgumentParser hands out Strings, which replace bytes that
/// are not UTF-8 (`$'\xe9t\xe9.wav'`) with U+FFFD, so the file could not be opened: the path's
/// bytes are taken from argv instead.
enum RawArguments {
    /// argv's bytes, once.
    static let all: [[UInt8]] = (0..<Int(CommandLine.argc)).map { index in
        guard let argument = CommandLine.unsafeArgv[index] else { return [] }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument)))
    }

    /// The bytes of the argument that reads as `text` (the argument itself, or its value after
    /// `--option=`); `text`'s UTF-8 when no argument matches (a value from somewhere else).
    static func bytes(of text: String) -> [UInt8] {
        for argument in all.dropFirst() {
            if String(decoding: argument, as: UTF8.self) == text { return argument }
            if let equals = argument.firstIndex(of: UInt8(ascii: "=")), argument.first == UInt8(ascii: "-"),
               String(decoding: argument[(equals + 1)...], as: UTF8.self) == text {
                return Array(argument[(equals + 1)...])
            }
        }
        return Array(text.utf8)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
