import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SmsNumberEntity } from './entities/sms-number.entity';
import { SmsNumbersRepository } from './sms-numbers.repository';
import { SmsNumbersService } from './sms-numbers.service';

/** The operator-assigned sending numbers: settings show them, SMS sends from and routes replies by them. */
@Module({
  imports: [TypeOrmModule.forFeature([SmsNumberEntity])],
  providers: [SmsNumbersRepository, SmsNumbersService],
  exports: [SmsNumbersService],
})
export class SmsNumbersModule {}
