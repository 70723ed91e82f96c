import NotiPlayDecoder

/// Every container × encoding the decoder claims, as each installed tool writes it.
///
/// Found by trying (ffmpeg 5.1, SoX 14.4.2, libsndfile 1.2.0, Python 3.11):
/// - ffmpeg writes no RIFX, no AIFF-C `twos`/`in24`/`in32`, no CAF `ima4` with `pakt`, and IMA
///   ADPCM (either kind) for one or two channels only.
/// - SoX writes RIFX (`-B`), but no RF64, no AIFF-C compression but `NONE` and `fl32`/`fl64`, and
///   CAF only through libsndfile.
/// - libsndfile's IMA writers are not used: 1.2.0 writes a stereo WAV `fact` and an AIFF-C ima4
///   COMM count of half the true value.
/// - Nothing installed writes AIFF-C `twos`, `in24`, `in32` or `raw `.
extension Fixture {
    static let all: [Fixture] = wave + rifx + rf64 + aiff + aifc + caf

    static let wave: [Fixture] = [
        ffmpeg(.wave, "UI8", .stereo, ["-c:a", "pcm_u8"]),
        ffmpeg(.wave, "LEI16", .stereo, ["-c:a", "pcm_s16le"]),
        ffmpeg(.wave, "LEI16", .mono, ["-c:a", "pcm_s16le"]),
        ffmpeg(.wave, "LEI16", .six, ["-c:a", "pcm_s16le"], "EXTENSIBLE"),
        ffmpeg(.wave, "LEI24", .stereo, ["-c:a", "pcm_s24le"], "EXTENSIBLE"),
        ffmpeg(.wave, "LEI32", .stereo, ["-c:a", "pcm_s32le"], "EXTENSIBLE"),
        ffmpeg(.wave, "LEF32", .stereo, ["-c:a", "pcm_f32le"], "EXTENSIBLE"),
        ffmpeg(.wave, "LEF32", .six, ["-c:a", "pcm_f32le"], "EXTENSIBLE"),
        ffmpeg(.wave, "LEF64", .stereo, ["-c:a", "pcm_f64le"], "EXTENSIBLE"),
        ffmpeg(.wave, "ulaw", .stereo, ["-c:a", "pcm_mulaw"]),
        // Chunks to skip: `bext` and `LIST` before `data`, `levl` (peak envelope) after it.
        ffmpeg(.wave, "LEI16", .stereo, ["-c:a", "pcm_s16le", "-write_bext", "1", "-write_peak", "on", "-metadata", "comment=odd"],
               "bext, levl after data"),
        ffmpeg(.wave, "alaw", .stereo, ["-c:a", "pcm_alaw"]),
        // ffmpeg's `fact` counts the padded last block, so the padding is part of the sound.
        ffmpeg(.wave, "ima-adpcm", .stereo, ["-c:a", "adpcm_ima_wav"], "block 1024", frames: .wholePackets),
        ffmpeg(.wave, "ima-adpcm", .stereo, ["-c:a", "adpcm_ima_wav", "-block_size", "256"], "block 256", frames: .wholePackets),
        ffmpeg(.wave, "ima-adpcm", .mono, ["-c:a", "adpcm_ima_wav"], "block 1024", frames: .wholePackets),
        ffmpeg(.wave, "ima-adpcm", .mono, ["-c:a", "adpcm_ima_wav", "-block_size", "512"], "block 512", frames: .wholePackets),
        // Streamed to a pipe: RIFF and data sizes stay 0xFFFFFFFF ("to the end of the file").
        Fixture(container: .wave, encoding: "LEI16", recipe: .ffmpegPipe(.stereo, ["-c:a", "pcm_s16le"]),
                variant: "streamed", fileExtension: "wav", frames: .signal, references: []),
        Fixture(container: .wave, encoding: "LEF32", recipe: .ffmpegPipe(.six, ["-c:a", "pcm_f32le"]),
                variant: "streamed", fileExtension: "wav", frames: .signal, references: []),
        Fixture(container: .wave, encoding: "ima-adpcm", recipe: .ffmpegPipe(.stereo, ["-c:a", "adpcm_ima_wav"]),
                variant: "streamed", fileExtension: "wav", frames: .wholePackets, references: []),

        sox(.wave, "UI8", .stereo, ["-e", "unsigned", "-b", "8"]),
        sox(.wave, "LEI16", .stereo, ["-e", "signed", "-b", "16"]),
        sox(.wave, "LEI16", .six, ["-e", "signed", "-b", "16"], "EXTENSIBLE"),
        sox(.wave, "LEI24", .stereo, ["-e", "signed", "-b", "24"], "EXTENSIBLE"),
        sox(.wave, "LEI32", .stereo, ["-e", "signed", "-b", "32"], "EXTENSIBLE"),
        sox(.wave, "LEF32", .stereo, ["-e", "float", "-b", "32"]),
        sox(.wave, "LEF64", .stereo, ["-e", "float", "-b", "64"]),
        sox(.wave, "ulaw", .stereo, ["-e", "u-law"]),
        sox(.wave, "alaw", .stereo, ["-e", "a-law"]),
        // SoX's `fact` is the true length: the last block's padding is not sound.
        sox(.wave, "ima-adpcm", .stereo, ["-e", "ima-adpcm"], "block 512"),
        sox(.wave, "ima-adpcm", .mono, ["-e", "ima-adpcm"], "block 256"),
        sox(.wave, "ima-adpcm", .six, ["-e", "ima-adpcm"], "block 1536"),

        python("wav", "UI8", width: 1),
        python("wav", "LEI16", width: 2),
        python("wav", "LEI24", width: 3),
        python("wav", "LEI32", width: 4),
    ]

    static let rifx: [Fixture] = [
        sox(.rifx, "UI8", .stereo, ["-B", "-e", "unsigned", "-b", "8"]),
        sox(.rifx, "BEI16", .stereo, ["-B", "-e", "signed", "-b", "16"]),
        sox(.rifx, "BEI16", .mono, ["-B", "-e", "signed", "-b", "16"]),
        sox(.rifx, "BEI24", .stereo, ["-B", "-e", "signed", "-b", "24"], "EXTENSIBLE"),
        sox(.rifx, "BEI32", .stereo, ["-B", "-e", "signed", "-b", "32"], "EXTENSIBLE"),
        sox(.rifx, "BEF32", .stereo, ["-B", "-e", "float", "-b", "32"]),
        sox(.rifx, "ulaw", .stereo, ["-B", "-e", "u-law"]),
        sndfile(.rifx, "BEI16", .stereo, ["-pcm16", "-endian=big"], ext: "wav"),
        sndfile(.rifx, "BEF32", .stereo, ["-float32", "-endian=big"], ext: "wav"),
    ]

    static let rf64: [Fixture] = [
        ffmpeg(.rf64, "LEI16", .stereo, ["-c:a", "pcm_s16le", "-rf64", "always"]),
        ffmpeg(.rf64, "LEF32", .six, ["-c:a", "pcm_f32le", "-rf64", "always"], "EXTENSIBLE"),
        ffmpeg(.rf64, "ulaw", .stereo, ["-c:a", "pcm_mulaw", "-rf64", "always"]),
        ffmpeg(.rf64, "ima-adpcm", .stereo, ["-c:a", "adpcm_ima_wav", "-rf64", "always"], "block 1024", frames: .wholePackets),
        sndfile(.rf64, "LEI24", .stereo, ["-pcm24"], ext: "rf64"),
    ]

    static let aiff: [Fixture] = [
        ffmpeg(.aiff, "I8", .stereo, ["-c:a", "pcm_s8"]),
        ffmpeg(.aiff, "BEI16", .stereo, ["-c:a", "pcm_s16be"]),
        ffmpeg(.aiff, "BEI16", .mono, ["-c:a", "pcm_s16be"]),
        ffmpeg(.aiff, "BEI16", .six, ["-c:a", "pcm_s16be"]),
        ffmpeg(.aiff, "BEI24", .stereo, ["-c:a", "pcm_s24be"]),
        ffmpeg(.aiff, "BEI32", .stereo, ["-c:a", "pcm_s32be"]),
        // NAME before COMM; an odd-sized SSND, its pad byte, then an ID3 chunk. (ffmpeg pads its
        // text chunks to even sizes itself: no tool here writes an odd chunk before the data.)
        ffmpeg(.aiff, "I8", .mono, ["-af", "atrim=end_sample=30869", "-c:a", "pcm_s8", "-write_id3v2", "1", "-metadata", "title=abc"],
               "NAME, odd SSND, ID3 after", frames: .exactly(30869)),
        sox(.aiff, "I8", .stereo, ["-e", "signed", "-b", "8"]),
        sox(.aiff, "BEI16", .stereo, ["-b", "16"]),
        sox(.aiff, "BEI16", .mono, ["-b", "16", "--comment", "odd comment"], "COMT"),
        sox(.aiff, "BEI24", .stereo, ["-b", "24"]),
        sox(.aiff, "BEI32", .stereo, ["-b", "32"]),
        python("aiff", "I8", width: 1),
        python("aiff", "BEI16", width: 2),
        python("aiff", "BEI24", width: 3),
        python("aiff", "BEI32", width: 4),
    ]

    static let aifc: [Fixture] = [
        // ffmpeg's AIFF muxer switches to AIFF-C by itself for these codecs.
        ffmpeg(.aifc, "LEI16", .stereo, ["-c:a", "pcm_s16le"], "sowt", ext: "aiff"),
        ffmpeg(.aifc, "BEF32", .stereo, ["-c:a", "pcm_f32be"], "fl32", ext: "aiff"),
        ffmpeg(.aifc, "BEF64", .stereo, ["-c:a", "pcm_f64be"], "fl64", ext: "aiff"),
        ffmpeg(.aifc, "ulaw", .stereo, ["-c:a", "pcm_mulaw"], ext: "aiff"),
        ffmpeg(.aifc, "alaw", .stereo, ["-c:a", "pcm_alaw"], ext: "aiff"),
        ffmpeg(.aifc, "ima4", .stereo, ["-c:a", "adpcm_ima_qt"], ext: "aiff", frames: .wholePackets),
        ffmpeg(.aifc, "ima4", .mono, ["-c:a", "adpcm_ima_qt"], ext: "aiff", frames: .wholePackets),
        sox(.aifc, "BEI16", .stereo, ["-b", "16"], "NONE"),
        sox(.aifc, "BEF32", .stereo, ["-e", "float", "-b", "32"], "fl32"),
        python("NONE", "BEI16", width: 2),
        python("ULAW", "ulaw", width: 2),
        python("ALAW", "alaw", width: 2),
        sndfile(.aifc, "ulaw", .stereo, ["-ulaw"]),
        sndfile(.aifc, "alaw", .stereo, ["-alaw"]),
        sndfile(.aifc, "LEI16", .stereo, ["-pcm16", "-endian=little"], "sowt"),
        sndfile(.aifc, "BEF32", .stereo, ["-float32"], "FL32"),
        sndfile(.aifc, "BEF64", .mono, ["-float64"], "FL64"),
    ]

    static let caf: [Fixture] = [
        ffmpeg(.caf, "I8", .stereo, ["-c:a", "pcm_s8"]),
        ffmpeg(.caf, "BEI16", .stereo, ["-c:a", "pcm_s16be"]),
        ffmpeg(.caf, "LEI16", .stereo, ["-c:a", "pcm_s16le"]),
        ffmpeg(.caf, "LEI16", .six, ["-c:a", "pcm_s16le"]),
        ffmpeg(.caf, "BEI24", .stereo, ["-c:a", "pcm_s24be"]),
        ffmpeg(.caf, "LEI24", .stereo, ["-c:a", "pcm_s24le"]),
        ffmpeg(.caf, "BEI32", .stereo, ["-c:a", "pcm_s32be"]),
        ffmpeg(.caf, "LEI32", .stereo, ["-c:a", "pcm_s32le"]),
        ffmpeg(.caf, "BEF32", .stereo, ["-c:a", "pcm_f32be"]),
        ffmpeg(.caf, "LEF32", .stereo, ["-c:a", "pcm_f32le"]),
        ffmpeg(.caf, "LEF32", .mono, ["-c:a", "pcm_f32le"]),
        ffmpeg(.caf, "BEF64", .stereo, ["-c:a", "pcm_f64be"]),
        ffmpeg(.caf, "LEF64", .stereo, ["-c:a", "pcm_f64le"]),
        ffmpeg(.caf, "ulaw", .stereo, ["-c:a", "pcm_mulaw"]),
        ffmpeg(.caf, "alaw", .stereo, ["-c:a", "pcm_alaw"]),
        ffmpeg(.caf, "ima4", .stereo, ["-c:a", "adpcm_ima_qt"], frames: .wholePackets),
        ffmpeg(.caf, "ima4", .mono, ["-c:a", "adpcm_ima_qt"], frames: .wholePackets),
        sndfile(.caf, "BEI16", .stereo, ["-pcm16"]),
        sndfile(.caf, "LEF32", .stereo, ["-float32", "-endian=little"]),
        sndfile(.caf, "ulaw", .mono, ["-ulaw"]),
    ]
}

// MARK: - Building the catalogue

extension Fixture {
    static func ffmpeg(
        _ container: Container, _ encoding: String, _ signal: Signal, _ args: [String], _ variant: String = "",
        ext: String? = nil, frames: FrameTruth = .signal
    ) -> Fixture {
        Fixture(container: container, encoding: encoding, recipe: .ffmpeg(signal, args), variant: variant,
                fileExtension: ext ?? container.defaultExtension, frames: frames, references: [])
    }

    static func sox(
        _ container: Container, _ encoding: String, _ signal: Signal, _ args: [String], _ variant: String = ""
    ) -> Fixture {
        Fixture(container: container, encoding: encoding, recipe: .sox(signal, args), variant: variant,
                fileExtension: container.defaultExtension, frames: .signal, references: [])
    }

    static func sndfile(
        _ container: Container, _ encoding: String, _ signal: Signal, _ args: [String], _ variant: String = "",
        ext: String? = nil
    ) -> Fixture {
        Fixture(container: container, encoding: encoding, recipe: .sndfile(signal, args), variant: variant,
                fileExtension: ext ?? container.defaultExtension, frames: .signal, references: [])
    }

    /// Python: `kind` is `wav`, `aiff`, or an AIFF-C compression type (NONE, ULAW, ALAW).
    static func python(_ kind: String, _ encoding: String, width: Int) -> Fixture {
        let container: Container = kind == "wav" ? .wave : kind == "aiff" ? .aiff : .aifc
        return Fixture(container: container, encoding: encoding, recipe: .python(kind: kind, width: width),
                       variant: container == .aifc ? kind : "", fileExtension: container.defaultExtension,
                       frames: .signal, references: [])
    }
}

extension Container {
    var defaultExtension: String {
        switch self {
        case .wave, .rifx, .rf64: "wav"
        case .aiff: "aiff"
        case .aifc: "aifc"
        case .caf: "caf"
        }
    }
}
