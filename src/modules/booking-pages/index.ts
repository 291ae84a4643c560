// What other modules may use of the booking pages (the API's schedulers): the Nest module.
export { BookingPagesModule } from './booking-pages.module';
