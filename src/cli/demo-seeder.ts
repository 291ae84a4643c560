import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth.types';
import { ApiException } from '../common/http/errors/problem';
import { clock } from '../common/time/clock';
import { FormSubmissionsService } from '../modules/forms/form-submissions.service';
import { EmailTemplatesService } from '../modules/email/email-templates.service';
import { SequencesService } from '../modules/email/sequences/sequences.service';
import { FormsService } from '../modules/forms/forms.service';
import { ClinicalService } from '../modules/patients/clinical.service';
import { EncountersService } from '../modules/encounters/encounters.service';
import { CustomFieldsService } from '../modules/patients/custom-fields.service';
import type { CreateCustomFieldDto } from '../modules/patients/dto/custom-field.dto';
import { PatientImportsService } from '../modules/patients/patient-imports.service';
import { PatientsService } from '../modules/patients/patients.service';
import { SettingsService } from '../modules/settings/settings.service';
import { BookingPagesService } from '../modules/booking-pages/booking-pages.service';
import { AppointmentTypesService } from '../modules/scheduling/appointment-types/appointment-types.service';
import { AppointmentsService } from '../modules/scheduling/appointments/appointments.service';
import { AvailabilityService } from '../modules/scheduling/availability/availability.service';
import { ProvidersService } from '../modules/scheduling/providers/providers.service';
import { DEMO_INTAKE_FORM, seedDemoForms } from './demo-forms';
import { DEMO_APPOINTMENT_TYPES, DEMO_SCHEDULER_SLUG, seedDemoScheduling } from './demo-scheduling';
import { SmsTemplatesService } from '../modules/sms/sms-templates.service';
import { DEMO_EMAIL_TEMPLATES, DEMO_REMINDER_TEMPLATE, DEMO_SEQUENCE_NAME, DEMO_SMS_TEMPLATES, seedDemoMessaging } from './demo-messaging';

const FIRST_NAMES = [
  'Olivia',
  'Noah',
  'Amelia',
  'Oliver',
  'Isla',
  'George',
  'Ava',
  'Arthur',
  'Mia',
  'Leo',
  'Ivy',
  'Harry',
  'Freya',
  'Muhammad',
  'Grace',
  'Jack',
  'Lily',
  'Theo',
  'Sophia',
  'Oscar',
  'Aisha',
  'Finley',
  'Priya',
  'Kai',
];
const LAST_NAMES = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Patel',
  'Robinson',
  'Wright',
  'Thompson',
  'Evans',
  'Walker',
  'White',
  'Roberts',
  'Green',
  'Hall',
  'Khan',
  'Okafor',
  'Nowak',
  'Murphy',
];
const TAGS = ['new-patient', 'vip', 'newsletter', 'physio', 'dental', 'referral', 'corporate-plan', 'follow-up', 'no-show-risk'];
const STREETS = ['High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Park Avenue', 'Mill Lane', 'Riverside Walk'];

const CUSTOM_FIELDS: CreateCustomFieldDto[] = [
  { key: 'insurer', label: 'Insurance provider', type: 'select', options: ['Bupa', 'AXA Health', 'Vitality', 'Aviva', 'Self-pay'] },
  { key: 'policy_number', label: 'Policy number', type: 'text' },
  { key: 'referral_source', label: 'Referral source', type: 'select', options: ['GP', 'Website', 'Friend', 'Employer'] },
  { key: 'marketing_consent', label: 'Marketing consent', type: 'boolean' },
  { key: 'visits_last_year', label: 'Visits in the last year', type: 'number' },
  { key: 'last_review', label: 'Last review', type: 'date' },
];

type DemoSection = 'practice' | 'brand' | 'portal';

/** Demo settings: only the keys a tenant has not set are written (see fillUnset). */
const DEMO_SETTINGS: Record<DemoSection, Record<string, unknown>> = {
  practice: {
    name: 'Riverside Family Practice',
    timezone: 'Europe/London',
    phone: '+442079460000',
    address: { line1: '12 Riverside Walk', city: 'London', postcode: 'SE1 9PX', country: 'GB' },
    openingHours: {
      monday: ['08:30', '18:00'],
      tuesday: ['08:30', '18:00'],
      wednesday: ['08:30', '18:00'],
      thursday: ['08:30', '20:00'],
      friday: ['08:30', '17:00'],
    },
  },
  brand: { primaryColor: '#0F766E', accentColor: '#F59E0B', logoUrl: 'https://example.com/riverside-logo.svg' },
  portal: { enabled: true, allowOnlineBooking: true, welcomeMessage: 'Welcome to the Riverside patient portal.' },
};

export const DEMO_PATIENTS = 200;
const WITH_CLINICAL = 40;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WITH_INTAKE_FORM = 8;

/** A deterministic pseudo-random sequence, so a re-run writes the same population. */
function pick<T>(list: readonly T[], i: number, salt: number): T {
  return list[(i * 7919 + salt * 104729) % list.length];
}

/** What seed:demo prints with --json; the summary (demo-summary.ts) is drawn from it. */
export interface DemoSeedResult {
  tenantId: string;
  mode: 'test';
  /** What this run added (a second run adds nothing). */
  seeded: DemoCounts;
  /** The demo booking page's public URL (`{PUBLIC_URL}/api/v1/public/schedulers/{id}`), no key needed. */
  bookingUrl: string | null;
  /** The patient's manage link of one scheduled demo appointment (`records.appointment`). */
  manageUrl: string | null;
  /** The ids of every demo record, this run's or an earlier one's. */
  ids: Record<DemoCollection, string[]>;
  /** The records a first call needs, with their names. */
  records: DemoRecords;
}

type DemoCollection =
  | 'patients'
  | 'forms'
  | 'providers'
  | 'appointmentTypes'
  | 'appointments'
  | 'schedulers'
  | 'emailTemplates'
  | 'smsTemplates'
  | 'emailSequences';

export interface DemoCounts {
  settingsFilled: Record<DemoSection, string[]>;
  customFields: number;
  patients: { created: number; updated: number; failed: number };
  patientsWithNewClinicalData: number;
  forms: number;
  formSubmissions: number;
  scheduling: Awaited<ReturnType<typeof seedDemoScheduling>>;
  emailTemplates: number;
  smsTemplates: number;
  emailSequences: number;
}

export interface DemoRecords {
  patient: { id: string; name: string } | null;
  providers: { id: string; name: string; timezone: string }[];
  appointmentTypes: { id: string; name: string; durationMinutes: number }[];
  bookingPage: { id: string; name: string } | null;
  appointment: {
    id: string;
    patientId: string;
    providerId: string;
    datetime: string;
    type: string | null;
    /** Its first reminder still to go, if any: the test clock's advance past it shows it sent. */
    nextReminder: { channel: 'email' | 'sms'; sendAt: string } | null;
  } | null;
  form: { id: string; name: string } | null;
  sequence: { id: string; name: string; status: string } | null;
}

/**
 * Fills a tenant's test mode with realistic demo data. Each domain adds its part here as it lands.
 * Safe to run twice: settings only fill keys the tenant has not set, custom fields already defined are kept, patients carry externalIds
 * (demo-0001 …) so a re-run updates them, and clinical data is only added to patients that have none.
 */
@Injectable()
export class DemoSeeder {
  constructor(
    private readonly settings: SettingsService,
    private readonly customFields: CustomFieldsService,
    private readonly imports: PatientImportsService,
    private readonly patients: PatientsService,
    private readonly clinical: ClinicalService,
    private readonly encounters: EncountersService,
    private readonly forms: FormsService,
    private readonly formSubmissions: FormSubmissionsService,
    private readonly providers: ProvidersService,
    private readonly appointmentTypes: AppointmentTypesService,
    private readonly availability: AvailabilityService,
    private readonly appointments: AppointmentsService,
    private readonly schedulers: BookingPagesService,
    private readonly emailTemplates: EmailTemplatesService,
    private readonly smsTemplates: SmsTemplatesService,
    private readonly sequences: SequencesService,
  ) {}

  async seed(tenantId: string): Promise<DemoSeedResult> {
    const auth: AuthContext = {
      tenantId,
      tenantName: '',
      mode: 'test',
      apiKeyId: '00000000-0000-0000-0000-000000000000',
      keyName: 'seed:demo',
      role: 'OWNER',
      scopes: null,
      expiresAt: null,
    };
    const settingsFilled = {
      practice: await this.fillUnset(auth, 'practice', DEMO_SETTINGS.practice),
      brand: await this.fillUnset(auth, 'brand', DEMO_SETTINGS.brand),
      portal: await this.fillUnset(auth, 'portal', DEMO_SETTINGS.portal),
    };

    for (const field of CUSTOM_FIELDS) {
      try {
        await this.customFields.create(auth, field);
      } catch (err) {
        if (!(err instanceof ApiException && err.code === 'custom_field_key_taken')) throw err;
      }
    }

    // Through the bulk-import path, run in this process: the same validation and upsert as the API.
    const { jobId } = await this.imports.submit(auth, demoPatients());
    await this.imports.run(auth, jobId);
    const report = await this.imports.status(auth, jobId);

    let clinicalAdded = 0;
    for (let i = 0; i < WITH_CLINICAL; i++) {
      const [patient] = (await this.patients.list(auth, { externalId: externalId(i) }, { limit: 1 })).patients;
      if (!patient) continue;
      const record = await this.clinical.get(auth, patient.id);
      if (record.conditions.length || record.medications.length || record.encounters.length) continue;
      await this.addClinical(auth, patient.id, i);
      clinicalAdded++;
    }

    const intakePatients = (await this.patients.list(auth, { hasEmail: true }, { limit: WITH_INTAKE_FORM })).patients;
    const forms = await seedDemoForms(auth, this.forms, this.formSubmissions, intakePatients);
    // Templates first: the appointment types remind by email a day ahead and by text two hours ahead.
    const messaging = await seedDemoMessaging(auth, this.emailTemplates, this.smsTemplates, this.sequences);
    const reminderTemplate = async (list: Promise<{ templates: { id: string; name: string }[] }>) =>
      (await list).templates.find((t) => t.name === DEMO_REMINDER_TEMPLATE)!.id;
    const reminders = [
      {
        offsetMinutes: 1440,
        channel: 'email' as const,
        templateId: await reminderTemplate(this.emailTemplates.list(auth, { limit: 100 })),
      },
      { offsetMinutes: 120, channel: 'sms' as const, templateId: await reminderTemplate(this.smsTemplates.list(auth, { limit: 100 })) },
    ];
    const scheduling = await seedDemoScheduling(
      auth,
      {
        providers: this.providers,
        types: this.appointmentTypes,
        availability: this.availability,
        appointments: this.appointments,
        schedulers: this.schedulers,
      },
      intakePatients.map((p) => p.id),
      reminders,
    );

    return {
      tenantId,
      mode: 'test',
      seeded: {
        settingsFilled,
        customFields: CUSTOM_FIELDS.length,
        patients: { created: report.created, updated: report.updated, failed: report.failed },
        patientsWithNewClinicalData: clinicalAdded,
        forms: forms.forms,
        formSubmissions: forms.submissions,
        scheduling,
        emailTemplates: messaging.emailTemplates,
        smsTemplates: messaging.smsTemplates,
        emailSequences: messaging.sequences,
      },
      ...(await this.demoRecords(auth)),
    };
  }

  /** Writes the keys of `values` the section does not have yet; the tenant's own settings stay as they are. */
  private async fillUnset(auth: AuthContext, section: DemoSection, values: Record<string, unknown>): Promise<string[]> {
    const { settings } = await this.settings.get(auth, section);
    const unset = Object.fromEntries(Object.entries(values).filter(([key]) => settings[key] === undefined));
    if (Object.keys(unset).length) await this.settings.update(auth, section, unset);
    return Object.keys(unset);
  }

  /** The demo records (this run's or an earlier one's), so the operator can call the API on them. */
  private async demoRecords(auth: AuthContext): Promise<Pick<DemoSeedResult, 'bookingUrl' | 'manageUrl' | 'ids' | 'records'>> {
    const page = { limit: 100 };
    const patients = [];
    for (let i = 0; i < DEMO_PATIENTS; i++) {
      const [patient] = (await this.patients.list(auth, { externalId: externalId(i) }, { limit: 1 })).patients;
      if (patient) patients.push(patient);
    }
    const scheduler = await this.schedulers.findBySlug(auth, DEMO_SCHEDULER_SLUG);
    const providers = [];
    for (const id of scheduler?.providerIds ?? []) providers.push(await this.providers.get(auth, id));
    const appointments = [];
    for (const { id: providerId } of providers)
      appointments.push(...(await this.appointments.list(auth, { providerId }, page)).appointments);
    // The earliest appointment still to come: its manage link can confirm, cancel or move it.
    const upcoming = appointments.filter((a) => a.status === 'scheduled').sort((a, b) => a.datetime.localeCompare(b.datetime))[0];
    const types = scheduler
      ? (await this.appointmentTypes.list(auth, page)).appointmentTypes.filter((t) => DEMO_APPOINTMENT_TYPES.some((d) => d.name === t.name))
      : [];
    const form = await this.forms.findBySlug(auth, DEMO_INTAKE_FORM.slug!);
    const sequences = (await this.sequences.list(auth, {}, page)).sequences.filter((s) => s.name === DEMO_SEQUENCE_NAME);
    const named = <T extends { id: string; name: string }>(list: T[], names: { name: string }[]): string[] =>
      list.filter((t) => names.some((n) => n.name === t.name)).map((t) => t.id);
    return {
      bookingUrl: scheduler?.bookingUrl ?? null,
      manageUrl: upcoming?.manageUrl ?? null,
      ids: {
        patients: patients.map((p) => p.id),
        forms: form ? [form.id] : [],
        providers: providers.map((p) => p.id),
        appointmentTypes: types.map((t) => t.id),
        appointments: appointments.map((a) => a.id),
        schedulers: scheduler ? [scheduler.id] : [],
        emailTemplates: named((await this.emailTemplates.list(auth, page)).templates, DEMO_EMAIL_TEMPLATES),
        smsTemplates: named((await this.smsTemplates.list(auth, page)).templates, DEMO_SMS_TEMPLATES),
        emailSequences: sequences.map((s) => s.id),
      },
      records: {
        patient: patients[0] ? { id: patients[0].id, name: `${patients[0].firstName} ${patients[0].lastName}` } : null,
        providers: providers.map((p) => ({ id: p.id, name: p.name, timezone: p.timezone })),
        appointmentTypes: types.map((t) => ({ id: t.id, name: t.name, durationMinutes: t.durationMinutes })),
        bookingPage: scheduler && { id: scheduler.id, name: scheduler.name },
        appointment: upcoming
          ? {
              id: upcoming.id,
              patientId: upcoming.patientId,
              providerId: upcoming.providerId,
              datetime: upcoming.datetime,
              type: upcoming.type,
              nextReminder:
                upcoming.reminders.filter((r) => r.status === 'scheduled').map((r) => ({ channel: r.channel, sendAt: r.sendAt }))[0] ??
                null,
            }
          : null,
        form: form && { id: form.id, name: form.name },
        sequence: sequences[0] ? { id: sequences[0].id, name: sequences[0].name, status: sequences[0].status } : null,
      },
    };
  }

  private async addClinical(auth: AuthContext, patientId: string, i: number): Promise<void> {
    const conditions = [
      {
        code: '38341003',
        display: 'Hypertensive disorder',
        medication: { name: 'Amlodipine 5 mg tablets', code: '197361', dosage: '5 mg once daily' },
      },
      {
        code: '195967001',
        display: 'Asthma',
        medication: { name: 'Salbutamol 100 micrograms inhaler', code: '745679', dosage: '2 puffs as needed' },
      },
      {
        code: '44054006',
        display: 'Diabetes mellitus type 2',
        medication: { name: 'Metformin 500 mg tablets', code: '860975', dosage: '500 mg twice daily' },
      },
      {
        code: '161891005',
        display: 'Backache',
        medication: { name: 'Ibuprofen 400 mg tablets', code: '197806', dosage: '400 mg three times daily' },
      },
    ];
    const c = conditions[i % conditions.length];
    const year = 2015 + (i % 10);
    await this.clinical.addCondition(auth, patientId, {
      code: c.code,
      codeSystem: 'http://snomed.info/sct',
      display: c.display,
      clinicalStatus: i % 5 === 0 ? 'resolved' : 'active',
      onsetDate: `${year}-0${1 + (i % 9)}-1${i % 10}`,
    });
    await this.clinical.addMedication(auth, patientId, {
      ...c.medication,
      status: 'active',
      startDate: `${year}-0${1 + (i % 9)}-2${i % 8}`,
    });
    await this.encounters.add(auth, patientId, {
      // Past visits spread over the year before the clock's today, each on the hour.
      datetime: new Date((Math.floor(clock.nowMs() / DAY) - 7 - ((i * 37) % 358)) * DAY + (9 + (i % 8)) * HOUR).toISOString(),
      type: pick(['consultation', 'follow-up', 'telephone', 'review'], i, 5),
      reason: `Review of ${c.display.toLowerCase()}`,
    });
  }
}

const externalId = (i: number): string => `demo-${String(i + 1).padStart(4, '0')}`;

function demoPatients(): Record<string, unknown>[] {
  return Array.from({ length: DEMO_PATIENTS }, (_, i) => {
    const firstName = pick(FIRST_NAMES, i, 1);
    const lastName = pick(LAST_NAMES, i, 2);
    const tags = [...new Set([pick(TAGS, i, 3), ...(i % 3 === 0 ? [pick(TAGS, i, 4)] : [])])];
    const year = 1940 + ((i * 37) % 66);
    const row: Record<string, unknown> = {
      externalId: externalId(i),
      firstName,
      lastName,
      dateOfBirth: `${year}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      gender: pick(['female', 'male', 'female', 'male', 'non-binary'], i, 6),
      address: `${1 + (i % 120)} ${pick(STREETS, i, 7)}, London`,
      patientType: pick(['patient', 'patient', 'patient', 'prospect', 'lead'], i, 8),
      patientStatus: pick(['active', 'active', 'active', 'active', 'inactive', 'archived', 'discharged'], i, 9),
      tags,
      customFields: {
        insurer: pick(['Bupa', 'AXA Health', 'Vitality', 'Aviva', 'Self-pay'], i, 10),
        referral_source: pick(['GP', 'Website', 'Friend', 'Employer'], i, 11),
        marketing_consent: i % 4 !== 0,
        visits_last_year: i % 9,
      },
    };
    if (i % 10 !== 3) row.email = `${firstName}.${lastName}.${i + 1}@example.com`.toLowerCase();
    // Ofcom's drama range for London (020 7946 0000–0999): valid numbers that reach no one.
    if (i % 7 !== 2) row.phone = `+442079460${String(i % 1000).padStart(3, '0')}`;
    return row;
  });
}
