package com.example;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class Tasks {
    @Scheduled(cron = "0 0 * * * *")
    public void refreshOrders() {
    }
}
