import NotiPlayDecoder

/// Whether a file is a valid notification sound, and as an attachment, with the reasons.
///
/// A notification sound: WAV, AIFF/AIFC or CAF holding Linear PCM, IMA4/IMA ADPCM, µ-law or
/// A-law, shorter than 30 seconds, holding some sound, and every sample a number. An attachment
/// (as `UNNotificationAttachment` validates audio before scheduling): also at most 5 MB, and it
/// decodes completely.
public struct SoundCheck: Sendable {
    public static let attachmentByteLimit = 5_000_000
    public static let maximumDuration = 30.0

    public var description: StreamDescription?
    public var fileBytes: Int
    /// Why the file is not a valid notification sound (or attachment); empty when it is.
    public var problems: [String]

    public var isValid: Bool { problems.isEmpty }

    /// Checks the file at `path` (opened with ``RegularFile``).
    public static func check(_ path: String, asAttachment: Bool) -> SoundCheck {
        do {
            return check(try RegularFile(path: path), asAttachment: asAttachment)
        } catch {
            return SoundCheck(description: nil, fileBytes: 0, problems: [error.message])
        }
    }

    /// Checks a file already opened. The header is always read (it is small and its cost is
    /// bounded); the samples only when no rule about the file's size or length has failed, so
    /// a check never spends its time on a file it has already refused.
    public static func check(_ file: RegularFile, asAttachment: Bool) -> SoundCheck {
        let bytes = file.byteCount
        var problems: [String] = []
        if asAttachment && bytes > attachmentByteLimit {
            problems.append("it is \(bytes) bytes; an audio attachment may be at most \(attachmentByteLimit)")
        }
        let decoder: SoundDecoder
        do {
            decoder = try SoundDecoder(file: file)
        } catch {
            // What `noti-play FILE` would play through libsndfile is said to be that, and why it
            // is still not a notification sound (a name from a notification would be refused).
            if let foreign = try? SoundSources.foreignDescription(of: SoundFile(file, formats: .anyReadable), declined: error) {
                return SoundCheck(description: nil, fileBytes: bytes, problems: problems + [
                    "it is \(foreign.container), \(foreign.encoding) (played from a path through \(foreign.reader)); a notification sound is WAV, AIFF/AIFC or CAF",
                ])
            }
            return SoundCheck(description: nil, fileBytes: bytes, problems: problems + [error.message])
        }
        let description = decoder.description
        if description.frameCount == 0 {
            problems.append("it holds no sound (0 frames)")
        }
        if description.duration >= maximumDuration {
            problems.append("it lasts \(description.duration.oneDecimal) s; notification sounds must be shorter than 30 s")
        }
        if description.isTruncated {
            problems.append("it is cut short: the file holds less audio than its header says")
        }
        if problems.isEmpty {
            problems += decodeProblems(decoder)
        }
        return SoundCheck(description: description, fileBytes: bytes, problems: problems)
    }

    /// Decodes every frame: a sound must decode whole, and every sample must be a number.
    private static func decodeProblems(_ decoder: SoundDecoder) -> [String] {
        let description = decoder.description
        var buffer = [Float](repeating: 0, count: 4096 * description.channelCount)
        var frames = 0
        var problems: [String] = []
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
        let count = decoder.nonFiniteSampleCount
        if count > 0 {
            problems.append("it holds \(count) sample\(count == 1 ? "" : "s") that \(count == 1 ? "is" : "are") not a number (NaN or infinite); \(count == 1 ? "it plays" : "they play") as silence")
        }
        return problems
    }
}
