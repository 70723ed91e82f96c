import NotiPlay
@testable import NotiPlayListen
import Testing

@Suite struct ListenRulesTests {
    var rules = ListenRules(settings: .init(always: false, interval: 1, burstLimit: 3))
    let normal = NotificationRequest(appName: "chat")
    let critical = NotificationRequest(appName: "chat", urgency: .critical)

    @Test mutating func oneSoundPerAppPerInterval() {
        #expect(rules.decide(normal, app: "chat", at: 10) == .play)
        #expect(rules.decide(normal, app: "chat", at: 10.5) != .play)
        #expect(rules.decide(normal, app: "mail", at: 10.5) == .play)
        #expect(rules.decide(normal, app: "chat", at: 11.01) == .play)
    }

    @Test mutating func aBurstOfAppsIsCappedButCriticalSoundsPass() {
        for app in 0..<3 { #expect(rules.decide(normal, app: "app\(app)", at: 5) == .play) }
        #expect(rules.decide(normal, app: "app3", at: 5.2) == .skip("rate limit: 3 sounds started in the last 1.0 s"))
        for _ in 0..<5 { #expect(rules.decide(critical, app: "chat", at: 5.3) == .play) }
        #expect(rules.decide(normal, app: "app3", at: 6.01) == .play)
    }

    @Test mutating func doNotDisturbPassesOnlyCriticalSounds() {
        rules.dunstPaused = true
        #expect(rules.decide(normal, app: "chat", at: 1) == .skip("dunst is paused (do not disturb)"))
        #expect(rules.decide(critical, app: "chat", at: 1) == .play)
        rules.dunstPaused = false
        rules.swayncDoNotDisturb = true
        #expect(rules.decide(normal, app: "chat", at: 2) == .skip("swaync's do not disturb is on"))
        rules.serverChanged()  // swaync's state is its own: a new notification server leaves it
        #expect(rules.swayncDoNotDisturb)
    }

    @Test mutating func aServerThatPlaysSoundsSilencesEverythingUnlessAlways() {
        rules.serverPlaysSound = true
        #expect(rules.decide(critical, app: "chat", at: 1) != .play)
        rules.settings.always = true
        #expect(rules.decide(critical, app: "chat", at: 1) == .play)
        rules.serverChanged()
        #expect(!rules.serverPlaysSound)
    }

    @Test mutating func anUpdateIsSilentUnlessItNamesASoundOrIsCritical() {
        #expect(rules.decide(normal, app: "player", isUpdate: true, at: 1) == .skip("an update of a notification names no sound of its own"))
        #expect(rules.decide(NotificationRequest(appName: "chat", category: "im.received"), app: "chat", isUpdate: true, at: 1) != .play)
        #expect(rules.decide(NotificationRequest(appName: "chat", soundName: "bell"), app: "chat", isUpdate: true, at: 1) == .play)
        #expect(rules.decide(critical, app: "alarm", isUpdate: true, at: 1) == .play)
        #expect(rules.decide(NotificationRequest(appName: "phone", category: "call.incoming"), app: "phone", isUpdate: true, at: 1) == .play)
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
        #expect(rules.decide(suppressed, app: "chat", at: 1) == .skip("suppress-sound"))
    }
}

@Suite struct RingtonesTests {
    let call = CallKey(sender: ":1.5", serial: 9)

    @Test func aRingtoneStopsWhenItsNotificationClosesOr30SecondsPass() {
        var ringtones = Ringtones()
        #expect(ringtones.started(PlaybackID(rawValue: 1), call: call, at: 100) == [])
        #expect(!ringtones.isRinging(7))
        ringtones.replied(call, id: 7)
        #expect(ringtones.isRinging(7))
        #expect(ringtones.stop(id: 8) == [])
        #expect(ringtones.stop(id: 7) == [PlaybackID(rawValue: 1)])
        #expect(ringtones.nextDeadline == nil)

        _ = ringtones.started(PlaybackID(rawValue: 2), call: call, at: 100)
        #expect(ringtones.nextDeadline == 130)
        #expect(ringtones.expired(at: 129.9) == [])
        #expect(ringtones.expired(at: 130) == [PlaybackID(rawValue: 2)])
    }

    @Test func aRefusedCallStopsItsRingtoneAndAFloodIsBounded() {
        var ringtones = Ringtones()
        _ = ringtones.started(PlaybackID(rawValue: 1), call: call, at: 0)
        #expect(ringtones.stop(call: call) == [PlaybackID(rawValue: 1)])
        var stopped: [PlaybackID] = []
        for n in 0..<(Ringtones.limit + 4) {
            stopped += ringtones.started(PlaybackID(rawValue: 100 + n), call: CallKey(sender: ":1.9", serial: UInt64(n)), at: 0)
        }
        #expect(stopped == (100..<104).map { PlaybackID(rawValue: $0) })
        #expect(ringtones.ringing.count == Ringtones.limit)
    }
}
