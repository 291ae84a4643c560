import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TemplatesModule } from '../templates';
import { SmsTemplateEntity } from './entities/sms-template.entity';
import { SmsTemplatesController } from './sms-templates.controller';
import { SmsTemplatesRepository } from './sms-templates.repository';
import { SmsTemplatesService } from './sms-templates.service';

/** SMS templates (no SMS sending yet: no provider is part of the contract). */
@Module({
  imports: [TypeOrmModule.forFeature([SmsTemplateEntity]), TemplatesModule],
  controllers: [SmsTemplatesController],
  providers: [SmsTemplatesRepository, SmsTemplatesService],
  exports: [SmsTemplatesService],
})
export class SmsModule {}
