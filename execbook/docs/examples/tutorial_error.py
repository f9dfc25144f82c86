# en: a reading written with a decimal comma, as Spanish writes it
# es: una lectura escrita con coma decimal, como se escribe en español
reading = "12,5"
float(reading)  # raises
