/// The IMA ADPCM nibble expansion shared by WAV IMA ADPCM and Apple IMA4.
///
/// This is the reference shift-and-add form (diff = step>>3, plus step, step>>1, step>>2 for
/// nibble bits 2, 1, 0), which libsndfile and FFmpeg's QuickTime decoder use. The multiply form
/// ((2n+1)·step)>>3 differs in the low bits and is deliberately not used.
package struct IMAChannelState {
    package var predictor: Int32
    package var stepIndex: Int32

    package static let stepTable: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
        73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
        449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630,
        9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
        32767,
    ]
    package static let indexAdjust: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]

    package init(predictor: Int32, stepIndex: Int32) {
        self.predictor = predictor
        // Headers are hostile: an index above 88 would read past the step table.
        self.stepIndex = min(max(stepIndex, 0), 88)
    }

    /// The signed difference a 4-bit code adds to the predictor at `step`, before the clamp.
    @inline(__always)
    package static func difference(_ nibble: UInt8, step: Int32) -> Int32 {
        var diff = step >> 3
        if nibble & 4 != 0 { diff += step }
        if nibble & 2 != 0 { diff += step >> 1 }
        if nibble & 1 != 0 { diff += step >> 2 }
        return nibble & 8 != 0 ? -diff : diff
    }

    /// Expands one 4-bit code to the next 16-bit sample.
    @inline(__always)
    package mutating func expand(_ nibble: UInt8, steps: UnsafeBufferPointer<Int32>, adjust: UnsafeBufferPointer<Int32>) -> Int16 {
        predictor += Self.difference(nibble, step: steps[Int(stepIndex)])
        predictor = min(max(predictor, -32768), 32767)
        stepIndex = min(max(stepIndex + adjust[Int(nibble)], 0), 88)
        return Int16(truncatingIfNeeded: predictor)
    }
}

extension IMAChannelState {
    /// The same expansion for callers outside the decode loop (the encoder, which must track
    /// the decoder's state exactly).
    @inline(__always)
    package mutating func expand(_ nibble: UInt8) -> Int16 {
        Self.withTables { steps, adjust in expand(nibble, steps: steps, adjust: adjust) }
    }

    /// Runs `body` with the two tables as buffer pointers, so the inner loop does no bounds or
    /// reference-count work on arrays.
    @inline(__always)
    package static func withTables<R>(_ body: (UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>) -> R) -> R {
        stepTable.withUnsafeBufferPointer { steps in
            indexAdjust.withUnsafeBufferPointer { adjust in body(steps, adjust) }
        }
    }
}

/// The decode loops' form of the same expansion, with the arithmetic moved into tables.
///
/// Entry `stepIndex * 16 + nibble` ("row | nibble", the step index kept multiplied by 16) of
/// `diffs` holds the signed difference `IMAChannelState.expand` would add, and of `nextRow` the
/// clamped next step index × 16. Both are computed once from the reference form above (89 × 16
/// entries each, 5.7 KB: they stay in L1), so a sample costs two loads, an add and the clamp
/// instead of three tests, four shifts, a negation and a second clamp. Bit-identical by
/// construction.
struct IMATables {
    let diffs: UnsafePointer<Int32>
    /// The same differences divided by 32768 (exact), for `IMAFloatLane`.
    let floatDiffs: UnsafePointer<Float>
    let nextRow: UnsafePointer<Int32>

    static let diffTable: [Int32] = (0..<89 * 16).map { entry in
        IMAChannelState.difference(UInt8(entry % 16), step: IMAChannelState.stepTable[entry / 16])
    }
    static let floatDiffTable: [Float] = diffTable.map { Float($0) / 32768 }
    static let nextRowTable: [Int32] = (0..<89 * 16).map { entry in
        min(max(Int32(entry / 16) + IMAChannelState.indexAdjust[entry % 16], 0), 88) * 16
    }

    /// Runs `body` with the tables as raw pointers, fetched once per decode call: a static
    /// array's accessor and its bounds checks stay out of the loop.
    @inline(__always)
    static func with<R>(_ body: (IMATables) -> R) -> R {
        diffTable.withUnsafeBufferPointer { diffs in
            floatDiffTable.withUnsafeBufferPointer { floatDiffs in
                nextRowTable.withUnsafeBufferPointer { nextRow in
                    body(IMATables(diffs: diffs.baseAddress!, floatDiffs: floatDiffs.baseAddress!, nextRow: nextRow.baseAddress!))
                }
            }
        }
    }
}

/// One IMA channel's state in a decode loop. Two forms: `IMAFloatLane` when decoding to Float,
/// `IMAIntLane` otherwise; the loops are generic over this and specialize.
protocol IMALane {
    init(predictor: Int16, stepIndex: Int32)
    /// Expands one nibble (0...15).
    mutating func expand(_ nibble: UInt32, _ tables: IMATables)
    /// The current sample as the output type.
    func sample<S: DecodedSample>() -> S
}

/// Integer form: the predictor as Int32, clamped to Int16's range.
struct IMAIntLane: IMALane {
    var predictor: Int32
    /// stepIndex × 16, always in 0...88 × 16.
    var row: Int32

    @inline(__always)
    init(predictor: Int16, stepIndex: Int32) {
        self.predictor = Int32(predictor)
        row = min(max(stepIndex, 0), 88) * 16  // headers are hostile: clamp as IMAChannelState does
    }

    /// Wrapping arithmetic: every value is bounded (predictor within Int16, |diff| ≤ 61438), so
    /// overflow checks would only cost time.
    @inline(__always)
    mutating func expand(_ nibble: UInt32, _ tables: IMATables) {
        let entry = Int(row) | Int(nibble)
        predictor = min(max(predictor &+ tables.diffs[entry], -32768), 32767)
        row = tables.nextRow[entry]
    }

    @inline(__always)
    func sample<S: DecodedSample>() -> S { S(sample16: Int16(truncatingIfNeeded: predictor)) }
}

/// Float form: the predictor kept as a Float already divided by 32768, so the output needs no
/// conversion and the clamp is one maxss and one minss. Exact: every value is an integer below
/// 2^17 over a power of two, which Float holds exactly, so adding and clamping here gives the
/// very bits `Float(sample16:)` gives for the integer predictor. (No -0.0 arises: the table's
/// zeros are +0.0 and x + -x is +0.0.)
struct IMAFloatLane: IMALane {
    var predictor: Float
    var row: Int32

    @inline(__always)
    init(predictor: Int16, stepIndex: Int32) {
        self.predictor = Float(sample16: predictor)
        row = min(max(stepIndex, 0), 88) * 16
    }

    @inline(__always)
    mutating func expand(_ nibble: UInt32, _ tables: IMATables) {
        let entry = Int(row) | Int(nibble)
        predictor = min(max(predictor + tables.floatDiffs[entry], -1.0), 32767.0 / 32768.0)
        row = tables.nextRow[entry]
    }

    @inline(__always)
    func sample<S: DecodedSample>() -> S { S(sampleFloat: predictor) }
}
