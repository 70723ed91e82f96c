/// What one device stream did: the format the device agreed to, its scheduling, underruns and
/// timings. For a host's log (`--verbose`, a daemon's debug output) and for the tests.
public struct StreamFigures: Sendable, Equatable {
    public var format: NegotiatedFormat
    /// Whether the render thread got SCHED_FIFO (it is refused without CAP_SYS_NICE or an rtprio limit).
    public var isRealtime: Bool
    /// Device underruns recovered.
    public var underruns: Int
    /// Periods in which every playing voice was waiting for its decoder.
    public var starvedWaits: Int
    /// CLOCK_MONOTONIC nanoseconds at which the first and the latest period were handed to the device.
    public var firstWriteNanoseconds: UInt64?
    public var lastWriteNanoseconds: UInt64?
    /// The error that stopped the device, if one did.
    public var deviceFailure: DeviceError?
}

extension PlaybackEngine {
    /// The stream's figures now; final once ``finish()`` or ``close()`` has returned.
    public var figures: StreamFigures {
        StreamFigures(format: format, isRealtime: isRealtime, underruns: underruns, starvedWaits: starvedWaits,
                      firstWriteNanoseconds: firstWriteNanoseconds, lastWriteNanoseconds: lastWriteNanoseconds,
                      deviceFailure: deviceFailure)
    }
}
