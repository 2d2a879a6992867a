export { Mailer, type Mail } from './mailer.port';
export { MailModule } from './mail.module';
