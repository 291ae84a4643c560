export const APPOINTMENT_STATUSES = ['scheduled', 'confirmed', 'completed', 'cancelled', 'no_show'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** The statuses that hold a slot: the exclusion constraint and availability count only these. */
export const ACTIVE_STATUSES: readonly AppointmentStatus[] = ['scheduled', 'confirmed'];

/** Where each status may go (docs/api.md, Scheduling). completed, cancelled and no_show are final. */
export const TRANSITIONS: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  scheduled: ['confirmed', 'cancelled', 'no_show', 'completed'],
  confirmed: ['completed', 'cancelled', 'no_show'],
  completed: [],
  cancelled: [],
  no_show: [],
};

/** Whether a PATCH may move an appointment from one status to another; staying put is not a transition. */
export function canTransition(from: AppointmentStatus, to: AppointmentStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export function isActive(status: AppointmentStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}
