@testable import NotiPlay
@testable import NotiPlayListen
import Testing

/// The rate and update rules listen used to keep are the player's now (``RequestRules``, one
/// copy for every daemon): the same cases, against it.
@Suite struct RequestRulesTests {
    var rules = RequestRules(limits: SoundLimits(interval: 1, burstLimit: 3))
    let normal = NotificationRequest(appName: "chat")
    let critical = NotificationRequest(appName: "chat", urgency: .critical)

    @Test mutating func oneSoundPerAppPerInterval() {
        #expect(rules.silenceReason(for: normal, at: 10) == nil)
        #expect(rules.silenceReason(for: normal, at: 10.5) == "rate limit: this app's last sound started less than 1.0 s ago")
        #expect(rules.silenceReason(for: NotificationRequest(appName: "mail"), at: 10.5) == nil)
        #expect(rules.silenceReason(for: normal, at: 11.01) == nil)
    }

    @Test mutating func aBurstOfAppsIsCappedButCriticalSoundsPass() {
        for app in 0..<3 { #expect(rules.silenceReason(for: NotificationRequest(appName: "app\(app)"), at: 5) == nil) }
        #expect(rules.silenceReason(for: NotificationRequest(appName: "app3"), at: 5.2) == "rate limit: 3 sounds started in the last 1.0 s")
        for _ in 0..<5 { #expect(rules.silenceReason(for: critical, at: 5.3) == nil) }
        #expect(rules.silenceReason(for: NotificationRequest(appName: "app3"), at: 6.01) == nil)
    }

    /// The rule remembers each app it let through for the interval: a sender naming a new app in
    /// every notification, with a burst limit of 0 (none of its own), nil or one past reason,
    /// meets the ceiling of 100 sounds an interval, and the apps remembered never pass it.
    @Test(arguments: [0, nil, Int.max] as [Int?])
    func manyAppsCannotGrowWhatTheRuleRemembers(burstLimit: Int?) {
        var rules = RequestRules(limits: SoundLimits(interval: 1, burstLimit: burstLimit))
        var played = 0, silenced: Set<String> = [], mostRemembered = 0
        for app in 0..<100_000 {
            // 100,000 apps within one interval, then the next interval's.
            let now = 10 + Double(app / 50_000) * 1.5 + Double(app % 50_000) * 1e-6
            if let reason = rules.silenceReason(for: NotificationRequest(appName: "app\(app)"), at: now) { silenced.insert(reason) }
            else { played += 1 }
            mostRemembered = max(mostRemembered, rules.rememberedApps)
        }
        #expect(played == 2 * SoundLimits.mostSoundsPerInterval && mostRemembered == 100, "\(played) played, \(mostRemembered) remembered")
        #expect(silenced == ["rate limit: 100 sounds started in the last 1.0 s"])
    }

    @Test mutating func zeroOrNilSwitchesTheRateLimitOff() {
        for interval in [0, nil] as [Double?] {
            rules = RequestRules(limits: SoundLimits(interval: interval))
            for _ in 0..<10 { #expect(rules.silenceReason(for: normal, at: 1) == nil) }
        }
    }

    @Test mutating func anUpdateIsSilentUnlessItNamesASoundOrIsCritical() {
        let update = "an update of a notification names no sound of its own"
        #expect(rules.silenceReason(for: NotificationRequest(appName: "player", isUpdate: true), at: 1) == update)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "chat", category: "im.received", isUpdate: true), at: 1) == update)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "chat", soundName: "bell", isUpdate: true), at: 1) == nil)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "alarm", urgency: .critical, isUpdate: true), at: 1) == nil)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "phone", category: "call.incoming", isUpdate: true), at: 1) == nil)
    }

    @Test mutating func hintsOnlyPlaysNoDefaultSound() {
        let none = "the notification's hints name no sound, and only hinted sounds play"
        #expect(rules.silenceReason(for: NotificationRequest(appName: "a", hintsOnly: true), at: 1) == none)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "b", urgency: .critical, hintsOnly: true), at: 1) == none)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "c", soundName: "bell", hintsOnly: true), at: 1) == nil)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "d", category: "im.received", hintsOnly: true), at: 1) == nil)
        #expect(rules.silenceReason(for: NotificationRequest(appName: "e", isRingtone: true, hintsOnly: true), at: 1) == nil)
    }

    /// The player silences it for suppress-sound: it does not count against the app's rate.
    @Test mutating func aSuppressedSoundIsNotCounted() {
        #expect(rules.silenceReason(for: NotificationRequest(appName: "chat", suppressSound: true), at: 1) == nil)
        #expect(rules.silenceReason(for: normal, at: 1.1) == nil)
    }
}

@Suite struct ListenRulesTests {
    var rules = ListenRules(settings: .init(always: false))
    let normal = NotificationRequest(appName: "chat")
    let critical = NotificationRequest(appName: "chat", urgency: .critical)

    @Test mutating func doNotDisturbPassesOnlyCriticalSounds() {
        rules.dunstPaused = true
        #expect(rules.decide(normal) == .skip("dunst is paused (do not disturb)"))
        #expect(rules.decide(critical) == .play)
        rules.dunstPaused = false
        rules.swayncDoNotDisturb = true
        #expect(rules.decide(normal) == .skip("swaync's do not disturb is on"))
        rules.serverChanged()  // swaync's state is its own: a new notification server leaves it
        #expect(rules.swayncDoNotDisturb)
    }

    @Test mutating func aServerThatPlaysSoundsSilencesEverythingUnlessAlways() {
        rules.serverPlaysSound = true
        #expect(rules.decide(critical) != .play)
        rules.settings.always = true
        #expect(rules.decide(critical) == .play)
        rules.serverChanged()
        #expect(!rules.serverPlaysSound)
    }

    @Test func onlyAnOpenNotificationCanBeUpdated() {
        var open = OpenNotifications()
        open.opened(7)
        #expect(open.contains(7) && !open.contains(8))
        open.closed(7)
        #expect(!open.contains(7))
        for id in 0..<UInt32(OpenNotifications.limit + 10) { open.opened(id) }
        #expect(!open.contains(9) && open.contains(10) && open.contains(UInt32(OpenNotifications.limit + 9)))
    }

    @Test mutating func suppressSoundWinsOverEverything() {
        let suppressed = NotificationRequest(appName: "chat", suppressSound: true, urgency: .critical)
        #expect(rules.decide(suppressed) == .skip("suppress-sound"))
    }
}

@Suite struct RingtonesTests {
    let call = CallKey(sender: ":1.5", serial: 9)

    @Test func aRingtoneStopsWhenItsNotificationClosesAndRingsNoLongerThanItsCap() {
        var ringtones = Ringtones()
        #expect(ringtones.started(PlaybackID(rawValue: 1), call: call, at: 100, ringCap: 30) == [])
        #expect(!ringtones.isRinging(7, at: 100))
        ringtones.replied(call, id: 7)
        #expect(ringtones.isRinging(7, at: 100))
        #expect(ringtones.stop(id: 8) == [])
        #expect(ringtones.stop(id: 7) == [PlaybackID(rawValue: 1)])

        // The player ends it after its cap: from then on an update of it is a new call.
        _ = ringtones.started(PlaybackID(rawValue: 2), call: call, at: 100, ringCap: 30)
        ringtones.replied(call, id: 7)
        #expect(ringtones.isRinging(7, at: 129.9))
        #expect(!ringtones.isRinging(7, at: 130))
        _ = ringtones.started(PlaybackID(rawValue: 3), call: call, at: 200, ringCap: nil)
        #expect(ringtones.ringing.map(\.playback) == [PlaybackID(rawValue: 3)], "the capped one is forgotten")
    }

    @Test func aRefusedCallStopsItsRingtoneAndAFloodIsBounded() {
        var ringtones = Ringtones()
        _ = ringtones.started(PlaybackID(rawValue: 1), call: call, at: 0, ringCap: 30)
        #expect(ringtones.stop(call: call) == [PlaybackID(rawValue: 1)])
        var stopped: [PlaybackID] = []
        for n in 0..<(Ringtones.limit + 4) {
            stopped += ringtones.started(PlaybackID(rawValue: 100 + n), call: CallKey(sender: ":1.9", serial: UInt64(n)), at: 0, ringCap: 30)
        }
        #expect(stopped == (100..<104).map { PlaybackID(rawValue: $0) })
        #expect(ringtones.ringing.count == Ringtones.limit)
    }
}
