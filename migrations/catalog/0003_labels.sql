CREATE TABLE `labels` (
	`query` text NOT NULL,
	`item_id` text NOT NULL,
	`label` text NOT NULL,
	PRIMARY KEY(`query`, `item_id`)
);
