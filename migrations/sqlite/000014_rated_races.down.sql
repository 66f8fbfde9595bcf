DROP TABLE rated_races;
