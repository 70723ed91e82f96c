import NotiPlayDecoder

/// One channel's encoder state. It mirrors the decoder exactly: after choosing a nibble it
/// expands that nibble with the reference shift-and-add form, so its predictor and step index
/// are the ones every reference decoder will hold at the same point.
struct IMAEncoderChannel {
    /// The decoder's own state, advanced by the decoder's own expansion.
    var state = IMAChannelState(predictor: 0, stepIndex: 0)
    var predictor: Int32 {
        get { state.predictor }
        set { state.predictor = newValue }
    }
    var stepIndex: Int32 {
        get { state.stepIndex }
        set { state.stepIndex = newValue }
    }

    /// Quantizes the difference to the prediction in units of the step: bit 2 for a whole step,
    /// bit 1 for half, bit 0 for a quarter, bit 3 for the sign.
    @inline(__always)
    mutating func encode(_ sample: Int16) -> UInt8 {
        let step = IMAChannelState.stepTable[Int(stepIndex)]
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
        _ = state.expand(nibble)
    }
}
