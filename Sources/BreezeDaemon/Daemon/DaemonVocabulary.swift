//===----------------------------------------------------------------------===//
//
// This source file is part of the breeze-agent open source project
//
// Copyright (c) 2026 the breeze-agent project authors
// Licensed under the Apache License, Version 2.0 (see LICENSE)
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

package import BreezeConfig
package import BreezeCore

/// The clock as the daemon reads it at an event: wall time for schedules and local dates,
/// process uptime (monotonic) for diagnostics.
package struct DaemonTime: Sendable, Equatable {
    package var now: DaemonInstant
    package var uptimeSeconds: Int

    package init(now: DaemonInstant, uptimeSeconds: Int) {
        self.now = now
        self.uptimeSeconds = uptimeSeconds
    }
}

/// What happens to the daemon (docs/reference.md, Topics scheduling and commands; docs/operations.md, Faults).
package enum DaemonEvent: Sendable {
    /// The timer fired (or the loop started): start due fetches, apply time edges.
    case tick
    /// A fetch asked for by ``DaemonAction/fetch(_:_:)`` finished.
    case fetched(FetchKey, FetchOutcome)
    /// The broker connection changed, or a message arrived on a subscribed topic.
    case mqtt(MQTTEvent)
    /// After a flush: the publisher holds clears back behind a discovery change until `until`
    /// (nil: none held). A deadline of the state's one wake; the tick after it flushes them.
    case clearsHeld(until: DaemonInstant?)
    case signal(DaemonSignal)
    /// A render asked for by ``DaemonAction/render(_:_:)`` finished (docs/images.md, ImagePipeline.swift).
    case rendered(ImageKey, RenderOutcome)
    /// The render helper of a run in flight started, or was sent its SIGTERM: the run's timeout
    /// or grace counts from here (``ImagePipeline``).
    case renderPhase(ImageKey, RenderPhase)
    /// An OpenEPaperLink upload asked for by ``DaemonAction/upload(_:_:)`` finished.
    case uploaded(Int, UploadOutcome)
    /// `once`: the loop did ``DaemonAction/prepareOnce``; `print`: the loop started.
    case prepared
    /// `once`: ``DaemonAction/flushAndReport`` sent `sent` messages; clears not yet due at that
    /// flush are held back until `clearsDueAt`, if any (a held clear that was due but could not
    /// be sent is not counted: `once` does not wait for it).
    case flushed(sent: Int, clearsDueAt: DaemonInstant?)
    /// `once`: the broker's outcomes asked for by ``DaemonAction/awaitOutcomes(timeout:)``.
    case outcomes(PublishOutcomes)
    /// At start (`once`: when prepared), the stored responses of a location the loop read from
    /// `state_dir` (``DaemonState/storedResponseNames(_:)``): restored by their sources' rules.
    case restored(location: Int, [RestoredResponse])
    /// `once`, connected: the MQTT version the broker accepted (``DaemonAction/prepareOnce``).
    case brokerProtocol(MQTTProtocolVersion)
    /// The broker's outcomes watched since ``DaemonAction/watchOutcomes(timeout:)``: handed to
    /// the publisher (``DaemonAction/reportOutcomes(_:pendingIsLost:)``); the next flush may
    /// start another watch.
    case outcomesSettled(PublishOutcomes)
}

/// The signals the daemon stops on (SIGTERM, SIGINT) or reports (SIGHUP).
package enum DaemonSignal: Sendable, Equatable {
    case hangup, terminate, interrupt

    /// Its name in the log.
    var name: String {
        switch self {
        case .hangup: "SIGHUP"
        case .terminate: "SIGTERM"
        case .interrupt: "SIGINT"
        }
    }
}

/// A write to `state_dir`.
package enum StoreWrite: Sendable {
    case response(StoredResponse, location: String, source: String)
    case removeResponse(location: String, source: String)
    case callCounts([String: CallCount])
    case unit(String, location: String)
    /// What each OpenEPaperLink access point last accepted (``ImagePipeline/uploadedDigests``).
    case uploadedImages([String: String])
}

/// A message outside the retained tree (availability, diagnostics, clearing a retained command).
package struct OutgoingMessage: Sendable, Equatable {
    package let topic: String
    package let payload: String
    package let qos: Int
    package let retain: Bool
}

/// What the loop does for the daemon; the state machine decides, the loop performs.
package enum DaemonAction: Sendable {
    /// Run a fetch and report it back as ``DaemonEvent/fetched(_:_:)``.
    case fetch(FetchKey, FetchRequest)
    /// Cancel the fetch of `key` the watchdog declared stuck; it must not report back (its
    /// failure is already applied, and the retry may be in flight when it would).
    case abandonFetch(FetchKey)
    /// Set what a scope of the retained tree should hold (``RetainedPublisher/set(scope:_:)``).
    case setScope(SinkScope)
    /// A step of handing over locations this shard no longer owns (``ShardHandover``).
    case handover(HandoverStep)
    /// Publish what changed; `persist: false` leaves saving the published set for later.
    case flush(persist: Bool)
    /// Wait up to `timeout` for the broker's outcomes of every publish so far and report them
    /// back as ``DaemonEvent/outcomesSettled(_:)``.
    case watchOutcomes(timeout: DaemonDuration)
    /// What the broker refused (MQTT 5 reason codes, or over the packet size) or a disconnect
    /// lost: logged and kept out of the published set (docs/operations.md, Limits), between flushes (the loop is
    /// the publisher's one owner). `pendingIsLost`: publishes still unacknowledged count as
    /// lost (`once`, which disconnects next).
    case reportOutcomes(PublishOutcomes, pendingIsLost: Bool)
    /// Publish every wanted topic again (after a (re)connect).
    case republishAll
    /// Publish one scope again (discovery after a Home Assistant birth).
    case republish(scope: String)
    case subscribe([String])
    case publish(OutgoingMessage)
    case store(StoreWrite)
    case log(LogLevel, String)
    /// Wake the loop (with ``DaemonEvent/tick``) at this instant; replaces the previous wake.
    case wake(at: DaemonInstant)
    /// Reconnect after this long from now on (nil: the configured backoff; docs/operations.md, Limits).
    case reconnectDelay(DaemonDuration?)
    /// Leave the loop: publish `offline`, disconnect, exit with this code.
    case stop(exitCode: Int32)
    /// Run the render helper and report back as ``DaemonEvent/rendered(_:_:)``.
    case render(ImageKey, RenderRequest)
    /// End a render past its timeout: SIGTERM to the helper; it reports back as ``DaemonEvent/rendered(_:_:)``.
    case stopRender(ImageKey)
    /// Kill a render helper still alive at the end of its grace (SIGKILL).
    case killRender(ImageKey)
    /// Keep an image's new bytes in the ``ImageStore`` (before the flush that publishes them).
    case imageReady(location: String, id: String, format: ImageFormat, bytes: [UInt8])
    /// POST a JPEG to an OpenEPaperLink access point; report back as ``DaemonEvent/uploaded(_:_:)``.
    case upload(Int, OpenEPaperLinkUpload)
    /// `once`, connected: warn of a protocol fallback, hold the scopes of handed-over
    /// locations, restore the stored responses; report back as ``DaemonEvent/prepared``.
    case prepareOnce
    /// `once`: publish what changed; report the count and the held-back clears' time back as
    /// ``DaemonEvent/flushed(sent:clearsDueAt:)``.
    case flushAndReport
    /// `once`: wait for the broker's outcomes, disconnect, hand them to the publisher; report
    /// back as ``DaemonEvent/outcomes(_:)``.
    case awaitOutcomes(timeout: DaemonDuration)
    /// `once`: log that the broker did not accept the connection, with the client's reason.
    case reportConnectFailure
    /// `print`: write this to stdout.
    case write(String)
}
