// What other modules may use of scheduling: the Nest module, the services, the DTOs and range rules
// other APIs share, and the exception a booking that lost its slot throws.
export { SchedulingModule } from './scheduling.module';
export { AppointmentsService } from './appointments.service';
export type { BookingRequest, BookingSteps, ChangeSource } from './appointments.service';
export { AvailabilityService, offering } from './availability.service';
export { AppointmentTypesService } from './appointment-types.service';
export { durationPolicy, typePolicy } from './appointment-policies';
export type { BookingPolicy } from './appointment-policies';
export { ProvidersService } from './providers.service';
export { parseRange } from './date-range';
export { DateRangeQueryDto, SlotDto } from './dto/availability.dto';
export { IsInstant } from './dto/is-instant';
export { SlotUnavailableException } from './scheduling.exceptions';
export { publicSlots } from './public-slots';
// The provider as ProvidersService.require answers it and AppointmentsService.insert takes it back.
export type { ProviderEntity } from './entities/provider.entity';
