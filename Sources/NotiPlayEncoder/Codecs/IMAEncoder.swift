/// The IMA ADPCM quantizer shared by WAV IMA ADPCM blocks and Apple IMA4 packets.
///
/// The tables are a copy of the decoder's (`IMAChannelState` in NotiPlayDecoder is internal);
/// they are fixed by the IMA standard.
enum IMATables {
    static let steps: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
        73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
        449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
        2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630,
        9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
        32767,
    ]
    static let indexAdjust: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8]
}

/// One channel's encoder state. It mirrors the decoder exactly: after choosing a nibble it
/// expands that nibble with the reference shift-and-add form, so its predictor and step index
/// are the ones every reference decoder will hold at the same point.
struct IMAEncoderChannel {
    var predictor: Int32 = 0
    var stepIndex: Int32 = 0

    /// Quantizes the difference to the prediction in units of the step: bit 2 for a whole step,
    /// bit 1 for half, bit 0 for a quarter, bit 3 for the sign.
    @inline(__always)
    mutating func encode(_ sample: Int16) -> UInt8 {
        let step = IMATables.steps[Int(stepIndex)]
        var difference = Int32(sample) - predictor
        var nibble: UInt8 = 0
        if difference < 0 { nibble = 8; difference = -difference }
        if difference >= step { nibble |= 4; difference -= step }
        if difference >= step >> 1 { nibble |= 2; difference -= step >> 1 }
        if difference >= step >> 2 { nibble |= 1 }
        expand(nibble)
        return nibble
    }

    /// The decoder's reference expansion (diff = step>>3, + step, + step>>1, + step>>2).
    @inline(__always)
    mutating func expand(_ nibble: UInt8) {
        let step = IMATables.steps[Int(stepIndex)]
        var diff = step >> 3
        if nibble & 4 != 0 { diff += step }
        if nibble & 2 != 0 { diff += step >> 1 }
        if nibble & 1 != 0 { diff += step >> 2 }
        predictor += nibble & 8 != 0 ? -diff : diff
        predictor = min(max(predictor, -32768), 32767)
        stepIndex = min(max(stepIndex + IMATables.indexAdjust[Int(nibble)], 0), 88)
    }
}
