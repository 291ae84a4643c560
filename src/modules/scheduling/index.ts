// What other modules may use of scheduling: the Nest module, the services, and the DTOs and range rules
// other APIs share.
export { SchedulingModule } from './scheduling.module';
export { AppointmentsService } from './appointments.service';
export type { BookingRequest, ChangeSource, EncounterReferences } from './appointments.service';
export { AvailabilityService, offering } from './availability.service';
export { AppointmentTypesService } from './appointment-types.service';
export { durationPolicy, typePolicy } from './appointment-policies';
export type { BookingPolicy } from './appointment-policies';
export { ProvidersService } from './providers.service';
export { parseRange } from './date-range';
export { DateRangeQueryDto, SlotDto } from './dto/availability.dto';
export { IsInstant } from './dto/is-instant';
export { publicSlots } from './public-slots';
// The provider as ProvidersService.require answers it and AppointmentsService.claimSlot takes it back.
export type { ProviderEntity } from './entities/provider.entity';
