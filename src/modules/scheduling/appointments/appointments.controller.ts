import { Body, Controller, Get, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Audited, carriedPatients } from '../../../common/audit/audited.decorator';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { dateFromNow } from '../../../common/http/openapi/example-dates';
import { IdParam } from '../../../common/http/requests/id-param';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { pageRequest } from '../../../common/http/lists/pagination';
import { Created, NoStore } from '../../../common/http/responses/response-headers';
import { appointmentCalendar } from './appointment-calendar';
import { AppointmentsService } from './appointments.service';
import {
  AppointmentDto,
  AppointmentListDto,
  BookAppointmentDto,
  ListAppointmentsQueryDto,
  UpdateAppointmentDto,
} from './dto/appointment.dto';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';
import { HoldsService } from '../holds/holds.service';

@ApiTags('Scheduling')
@Controller('scheduling')
// Appointments embed their patient; every route is audited (patient data).
@NoStore()
export class AppointmentsController {
  constructor(
    private readonly appointments: AppointmentsService,
    private readonly holds: HoldsService,
  ) {}

  @Post('book')
  @Idempotent()
  @Audited('appointment.create')
  @Created((appointment: AppointmentDto) => ['scheduling', 'appointments', appointment.id])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'bookAppointment',
    summary: 'Book an appointment',
    description:
      "201 with the appointment (status `scheduled`, patient embedded) and Location. Outside the provider's working hours, in its time off, in the past or overlapping another scheduled or confirmed appointment of the provider, or (with appointmentTypeId, unless overridePolicies) off the type's slot grid or against its other policies: 409 `slot_unavailable` with `alternatives`, the provider's next three free slots of that duration. The database's exclusion constraint settles races: of concurrent bookings of one slot exactly one succeeds. A patientId or providerId of another tenant or mode is 400. With `holdId` (a hold of POST /scheduling/holds) instead of providerId, datetime and the type or duration: books the held time under the policies it was taken with, and the hold becomes `consumed`, naming the appointment; an expired or released hold is 410 `hold_expired`, a booked one 409 `hold_consumed` with its `appointmentId`. `notifyPatient: true` sends the patient a booking notice (kind `booking_notice`, by the type's notice channels; email with the .ics by default), queued with the booking; without it nobody is told.",
  })
  @ApiCreatedResponse({ type: AppointmentDto, headers: { Location: { description: 'The appointment URL', schema: { type: 'string' } } } })
  @ApiErrors('slot_unavailable', 'hold_consumed', 'hold_expired')
  @ApiBody({
    type: BookAppointmentDto,
    // Written out so that the optional appointmentTypeId is not pre-filled with an id that names nothing.
    examples: {
      duration: {
        summary: 'A length of your choice',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
          datetime: dateFromNow(0, '15:00'),
          duration: 30,
          type: 'consultation',
          notes: 'First visit',
        },
      },
      appointmentType: {
        summary: 'An appointment type (its length, policies and name)',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
          datetime: dateFromNow(1, '15:00'),
          appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60',
        },
      },
    },
  })
  book(@CurrentAuth() auth: AuthContext, @Body() body: BookAppointmentDto): Promise<AppointmentDto> {
    const { holdId } = body;
    return holdId !== undefined ? this.holds.book(auth, { ...body, holdId }) : this.appointments.book(auth, body);
  }

  @Get('appointments')
  @Audited('appointment.list')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'listAppointments',
    summary: 'List appointments by datetime ascending',
    description:
      'Each with its patient embedded: whole for a key with the `patients:read` scope, else `{ id, firstName, lastName, email, phone }` (as in every appointment answer). Filters combine (AND); startDate/endDate bound the start: startDate ≤ datetime < endDate.',
  })
  @ApiOkResponse({ type: AppointmentListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListAppointmentsQueryDto): Promise<AppointmentListDto> {
    return this.appointments.list(auth, query, pageRequest(query));
  }

  @Get('appointments/:id.ics')
  @Audited('appointment.calendar')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'getAppointmentCalendar',
    summary: 'The appointment as an iCalendar event',
    description: 'RFC 5545 (text/calendar), one VEVENT, times in UTC; it names the provider and the practice, not the patient.',
  })
  @ApiProduces('text/calendar')
  @ApiOkResponse({ description: 'The iCalendar file', content: { 'text/calendar': { schema: { type: 'string' } } } })
  async calendar(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { appointment, provider } = await this.appointments.getWithProvider(auth, id);
    // A text answer, which the audit hook cannot read for patients: the file carries this one's name.
    carriedPatients(reply.request, [appointment.patientId]);
    void reply
      .type('text/calendar; charset=utf-8')
      .header('content-disposition', `attachment; filename="appointment-${appointment.id}.ics"`);
    return appointmentCalendar(appointment, provider, auth.tenantName);
  }

  @Get('appointments/:id')
  @Audited('appointment.read')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getAppointment', summary: 'Read an appointment' })
  @ApiOkResponse({ type: AppointmentDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<AppointmentDto> {
    return this.appointments.read(auth, id);
  }

  @Patch('appointments/:id')
  @Audited('appointment.update')
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'updateAppointment',
    summary: 'Change, reschedule or complete an appointment',
    description:
      "status: scheduled → confirmed, cancelled, no_show, completed; confirmed → completed, cancelled, no_show; completed, cancelled and no_show are final (409 `invalid_transition`, naming from and to). datetime/duration reschedule a scheduled or confirmed appointment, checked like a booking (409 `slot_unavailable` with alternatives). Completing records an encounter in the patient's clinical data in the same transaction. With `notifyPatient: true`, a reschedule or cancellation sends the patient a booking notice, queued with the change; other changes send none.",
  })
  @ApiOkResponse({ type: AppointmentDto })
  @ApiErrors('invalid_transition', 'slot_unavailable')
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateAppointmentDto): Promise<AppointmentDto> {
    return this.appointments.update(auth, id, body);
  }
}
