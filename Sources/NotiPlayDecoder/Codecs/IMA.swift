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

    /// Expands one 4-bit code to the next 16-bit sample.
    @inline(__always)
    package mutating func expand(_ nibble: UInt8, steps: UnsafeBufferPointer<Int32>, adjust: UnsafeBufferPointer<Int32>) -> Int16 {
        let step = steps[Int(stepIndex)]
        var diff = step >> 3
        if nibble & 4 != 0 { diff += step }
        if nibble & 2 != 0 { diff += step >> 1 }
        if nibble & 1 != 0 { diff += step >> 2 }
        predictor += nibble & 8 != 0 ? -diff : diff
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
