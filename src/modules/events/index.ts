// What other modules may use of events: the Nest module, the service that records events in a
// transaction, and the event types.
export { EventsModule } from './events.module';
export { EventsService } from './events.service';
export { EVENT_TYPES, TEST_EVENT_TYPE } from './event-types';
export type { AnyEventType, EventType } from './event-types';
export { EventsRetention } from './events-retention.service';
