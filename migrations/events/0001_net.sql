ALTER TABLE `searches` ADD `net` text;--> statement-breakpoint
CREATE INDEX `searches_experiment_net` ON `searches` (`experiment_id`,`net`);