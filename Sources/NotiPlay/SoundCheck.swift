import NotiPlayDecoder

/// Whether a file is a valid notification sound, and as an attachment, with the reasons.
///
/// A notification sound: WAV, AIFF/AIFC or CAF holding Linear PCM, IMA4/IMA ADPCM, µ-law or
/// A-law, shorter than 30 seconds. An attachment (as `UNNotificationAttachment` validates audio
/// before scheduling): at most 5 MB, a supported type, and it decodes completely.
public struct SoundCheck: Sendable {
    public static let attachmentByteLimit = 5_000_000
    public static let maximumDuration = 30.0

    public var description: StreamDescription?
    public var fileBytes: Int
    /// Why the file is not a valid notification sound (or attachment); empty when it is.
    public var problems: [String]

    public var isValid: Bool { problems.isEmpty }

    public static func check(_ path: String, asAttachment: Bool) -> SoundCheck {
        let bytes = FileSystem.identity(path).map { Int($0.size) } ?? 0
        var problems: [String] = []
        if asAttachment && bytes > attachmentByteLimit {
            problems.append("it is \(bytes) bytes; an audio attachment may be at most \(attachmentByteLimit)")
        }
        let decoder: SoundDecoder
        do {
            decoder = try SoundDecoder(path: path)
        } catch {
            return SoundCheck(description: nil, fileBytes: bytes, problems: problems + [error.message])
        }
        let description = decoder.description
        if description.duration >= maximumDuration {
            problems.append("it lasts \(description.duration.oneDecimal) s; notification sounds must be shorter than 30 s")
        }
        if description.isTruncated {
            problems.append("it is cut short: the file holds less audio than its header says")
        }
        if asAttachment {
            // Decode every frame: an attachment must be whole, not just have a good header.
            var buffer = [Float](repeating: 0, count: 4096 * description.channelCount)
            var frames = 0
            do {
                while true {
                    let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(DecodingError) -> Int in try decoder.read(into: b) }
                    if n == 0 { break }
                    frames += n
                }
                if frames < description.frameCount {
                    problems.append("it ends after \(frames) of its \(description.frameCount) frames")
                }
            } catch {
                problems.append("it does not decode completely: \(error.message)")
            }
        }
        return SoundCheck(description: description, fileBytes: bytes, problems: problems)
    }
}
